#!/usr/bin/env bash
# A Docker engine for this machine when none answers: Debian's docker.io daemon, started in the background with its
# state under ESP_DOCKER_HOME (kept between runs, so built images and the build cache survive), and the compose v2
# plugin (Debian bookworm ships only compose 1.29, which rejects the top-level `name:`).
#
#   tools/docker/engine.sh up       # start (or reuse) an engine; prints the DOCKER_HOST to use
#   tools/docker/engine.sh down     # stop the engine this script started (never one it found running)
#   tools/docker/engine.sh status
#
# Needs root for apt-get and dockerd. On a machine with a running engine (Docker Desktop, a system service), `up`
# only checks it and the compose plugin.
set -euo pipefail

ESP_DOCKER_HOME="${ESP_DOCKER_HOME:-/var/cache/esp-docker}"
SOCK="$ESP_DOCKER_HOME/run/docker.sock"
PIDFILE="$ESP_DOCKER_HOME/run/dockerd.pid"
PLUGINS="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
log() { echo "engine: $*" >&2; }

engine_answers() { docker ${1:+-H "$1"} version --format '{{.Server.Version}}' >/dev/null 2>&1; }

install_packages() {
  local need=()
  command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
  command -v docker >/dev/null 2>&1 || need+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
  [ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx wget || need+=(busybox-static)
  if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
}

# compose v2 and buildx from Debian trixie: static Go binaries that run on bookworm. Downloaded, unpacked into the
# CLI plugin folder, never installed as packages (that would pull trixie's libc).
install_compose_plugin() {
  if docker compose version >/dev/null 2>&1 && docker buildx version >/dev/null 2>&1; then return; fi
  log "fetching docker compose v2 and buildx (Debian trixie) into $PLUGINS"
  local apt_dir="$ESP_DOCKER_HOME/trixie-apt" work
  work="$(mktemp -d)"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$PLUGINS"
  local mirror
  # the Debian mirror apt already uses (deb822 `URIs:` or one-line `deb` entries; not the security archive)
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '/^URIs:/ { print $2 } /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) print $i }' |
    grep -E '/debian/?$' | head -1 || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  echo "deb [trusted=yes] ${mirror%/} trixie main" >"$apt_dir/sources.list"
  local opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-" -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache::Archives=$apt_dir/archives" -o "APT::Get::List-Cleanup=0" -o "Debug::NoLocking=1")
  apt-get "${opts[@]}" update -qq
  (cd "$work" && apt-get "${opts[@]}" download docker-compose docker-buildx >/dev/null)
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
  cp "$(find "$work/x" -path '*cli-plugins/docker-compose' | head -1)" "$PLUGINS/docker-compose"
  cp "$(find "$work/x" -path '*cli-plugins/docker-buildx' | head -1)" "$PLUGINS/docker-buildx"
  chmod +x "$PLUGINS"/docker-*
  rm -rf "$work"
  docker compose version >&2
}

up() {
  if [ -z "${DOCKER_HOST:-}" ] && engine_answers; then
    log "an engine already answers on the default socket"
    install_compose_plugin
    echo "unix:///var/run/docker.sock"
    return
  fi
  if engine_answers "unix://$SOCK"; then
    log "reusing the engine at $SOCK"
  else
    install_packages
    mkdir -p "$ESP_DOCKER_HOME/data" "$ESP_DOCKER_HOME/exec" "$ESP_DOCKER_HOME/run"
    log "starting dockerd (data in $ESP_DOCKER_HOME/data)"
    nohup dockerd --data-root "$ESP_DOCKER_HOME/data" --exec-root "$ESP_DOCKER_HOME/exec" --pidfile "$PIDFILE" \
      --host "unix://$SOCK" --storage-driver overlay2 >"$ESP_DOCKER_HOME/dockerd.log" 2>&1 &
    for _ in $(seq 1 60); do
      engine_answers "unix://$SOCK" && break
      sleep 0.5
    done
    engine_answers "unix://$SOCK" || { tail -20 "$ESP_DOCKER_HOME/dockerd.log" >&2; log "dockerd did not come up"; exit 1; }
    # the default socket too, so tools that ignore DOCKER_HOST find it (unless something else owns that path)
    [ -e /var/run/docker.sock ] || ln -s "$SOCK" /var/run/docker.sock
    touch "$ESP_DOCKER_HOME/run/started-by-esp"
  fi
  DOCKER_HOST="unix://$SOCK" install_compose_plugin
  echo "unix://$SOCK"
}

down() {
  if [ -f "$ESP_DOCKER_HOME/run/started-by-esp" ] && [ -f "$PIDFILE" ]; then
    local pid
    pid="$(cat "$PIDFILE")"
    log "stopping dockerd ($pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    [ -L /var/run/docker.sock ] && [ "$(readlink /var/run/docker.sock)" = "$SOCK" ] && rm -f /var/run/docker.sock
    rm -f "$ESP_DOCKER_HOME/run/started-by-esp"
  else
    log "no engine started by this script is running"
  fi
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) if engine_answers "${DOCKER_HOST:-unix://$SOCK}" || engine_answers; then echo running; else echo stopped; exit 1; fi ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
