#!/usr/bin/env bash
# Local stand-ins for the official base images, for machines that cannot reach Docker Hub (CI here). They carry the
# project's own names, never Docker Hub's, so that on a machine with Docker Hub nothing official is replaced:
#
#   esp-local/debian:bookworm   debootstrap --variant=minbase of the Debian mirror apt uses (tree cached)
#   esp-local/node:20           that base plus this machine's Node.js, its headers (/usr/local/include/node, as in
#                               the official image: node-gyp builds better-sqlite3 with them, with no download) and
#                               npm, a `node` user (uid 1000) as in the official node image, and this machine's CA
#                               bundle for npm and Node
#   esp-local/nats:2.9          Debian's nats-server with its libc and busybox (for wget health checks);
#                               entrypoint nats-server, as the official image's
#
#   tools/docker/local-images.sh          # build what is missing (each image is built once per engine)
#   tools/docker/local-images.sh --force  # build all three again
#
# Then: NODE_IMAGE=esp-local/node:20 NATS_IMAGE=esp-local/nats:2.9 docker compose up --build
set -euo pipefail

ESP_DOCKER_HOME="${ESP_DOCKER_HOME:-/var/cache/esp-docker}"
BASE=esp-local/debian:bookworm
NODE=esp-local/node:20
NATS=esp-local/nats:2.9
force=false
[ "${1:-}" = "--force" ] && force=true
log() { echo "local-images: $*" >&2; }
have() { ! $force && docker image inspect "$1" >/dev/null 2>&1; }

mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '/^URIs:/ { print $2 } /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) print $i }' |
    grep -E '/debian/?$' | head -1 || true
}

build_base() {
  have "$BASE" && return
  local tarball="$ESP_DOCKER_HOME/bookworm-minbase.tar"
  if [ ! -s "$tarball" ] || $force; then
    command -v debootstrap >/dev/null || { log "debootstrap is missing (apt-get install debootstrap)"; exit 1; }
    local m tree
    m="$(mirror)"
    m="${m:-http://deb.debian.org/debian}"
    tree="$(mktemp -d "$ESP_DOCKER_HOME/bookworm.XXXX")"
    log "debootstrap --variant=minbase bookworm from $m (about 2.5 min, cached in $tarball)"
    debootstrap --variant=minbase bookworm "$tree" "$m" >"$ESP_DOCKER_HOME/debootstrap.log" 2>&1 ||
      { tail -20 "$ESP_DOCKER_HOME/debootstrap.log" >&2; exit 1; }
    rm -rf "$tree"/var/cache/apt/archives/*.deb "$tree"/var/lib/apt/lists/*
    tar -C "$tree" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$tree"
  fi
  log "importing $BASE"
  docker import --change 'CMD ["/bin/bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$tarball" "$BASE" >/dev/null
}

build_node() {
  # made again when this machine's Node.js is not the one inside, or the image predates the headers
  local recipe="node $(node --version) with headers"
  if have "$NODE" && [ "$(docker image inspect -f '{{ index .Config.Labels "esp.recipe" }}' "$NODE")" = "$recipe" ]; then
    return
  fi
  local ctx headers
  headers="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node"
  [ -f "$headers/common.gypi" ] || { log "Node's headers are missing in $headers (the nodejs package has them)"; exit 1; }
  ctx="$(mktemp -d)"
  cp "$(command -v node)" "$ctx/node"
  cp -r "$headers" "$ctx/include-node"
  cp -r "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$ctx/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
  cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM $BASE
COPY node /usr/local/bin/node
COPY include-node /usr/local/include/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && npm config set --global cafile /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
LABEL esp.recipe="$recipe"
CMD ["node"]
DOCKERFILE
  log "building $NODE (Node $(node --version))"
  DOCKER_BUILDKIT=1 docker build -q -t "$NODE" "$ctx" >/dev/null
  rm -rf "$ctx"
}

build_nats() {
  have "$NATS" && return
  local bin root
  bin="$(command -v nats-server || echo /usr/sbin/nats-server)"
  [ -x "$bin" ] || { log "nats-server is missing (apt-get install nats-server)"; exit 1; }
  [ -x /bin/busybox ] || { log "busybox is missing (apt-get install busybox-static)"; exit 1; }
  root="$(mktemp -d)"
  mkdir -p "$root/bin" "$root/tmp" "$root/data" "$root/etc"
  cp "$bin" "$root/bin/nats-server"
  cp /bin/busybox "$root/bin/busybox"
  for tool in sh wget ls cat; do ln -s busybox "$root/bin/$tool"; done
  # the shared libraries nats-server links against (Debian builds it with cgo)
  ldd "$bin" | awk '/=> \// { print $3 } /^\s*\/lib/ { print $1 }' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
  done
  echo 'nats:x:1000:1000::/data:/bin/sh' >"$root/etc/passwd"
  chmod 1777 "$root/tmp"
  log "importing $NATS ($("$bin" --version))"
  tar -C "$root" -c . | docker import \
    --change 'ENTRYPOINT ["/bin/nats-server"]' --change 'EXPOSE 4222 6222 8222' \
    --change 'ENV PATH=/bin' - "$NATS" >/dev/null
  rm -rf "$root"
}

start=$(date +%s)
build_base
build_node
build_nats
log "ready in $(($(date +%s) - start)) s: $BASE $NODE $NATS"
