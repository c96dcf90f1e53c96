#!/usr/bin/env bash
# The compose stack end to end: build the image, bring every service up healthy, feed the demo corpus from the host
# with the feed CLI, find documents with the search CLI, stop the stack and check that every service exited 0 on
# SIGTERM within its stop_grace_period; then remove it with its volumes (also when a step fails).
#
#   NODE_IMAGE=esp-local/node:20 NATS_IMAGE=esp-local/nats:2.9 tools/docker/compose-smoke.sh
#
# Environment: NODE_IMAGE, NATS_IMAGE (as for docker compose), PROJECT (compose project, default esp-smoke),
# NATS_PORT / CONFIG_SERVER_PORT / NODE_CONTROLLER_PORT (host ports, defaults 14222 / 16105 / 16115, so that a stack
# or a nats-server already on the default ports is left alone).
set -euo pipefail
cd "$(dirname "$0")/../.."

export NATS_PORT="${NATS_PORT:-14222}" CONFIG_SERVER_PORT="${CONFIG_SERVER_PORT:-16105}" NODE_CONTROLLER_PORT="${NODE_CONTROLLER_PORT:-16115}"
export DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1
export NATS_URL="nats://127.0.0.1:$NATS_PORT"
PROJECT="${PROJECT:-esp-smoke}"
compose() { docker compose -p "$PROJECT" "$@"; }
log() { echo "compose-smoke: $*" >&2; }
trap 'compose down -v --remove-orphans >/dev/null 2>&1 || true' EXIT

t0=$(date +%s)
log "build"
compose build -q
t1=$(date +%s)
log "up --wait (built in $((t1 - t0)) s)"
if ! compose up -d --wait; then
  compose ps -a >&2
  compose logs --tail 30 >&2
  exit 1
fi
t2=$(date +%s)
log "every service healthy $((t2 - t1)) s after up"

# the corpus without broken/, whose files fail on purpose (bad XML, bad UTF-8): every document must complete
mapfile -t dirs < <(find tools/demo/corpus -mindepth 1 -maxdepth 1 -type d ! -name broken | sort)
log "feed ${#dirs[@]} directories of tools/demo/corpus"
npm run -s feed -- --collection default --quiet "${dirs[@]}"
hits="$(npm run -s search -- license --json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).total)')"
[ "$hits" -gt 0 ] || { log "search found nothing"; exit 1; }
log "search: $hits hits for \"license\""

log "stop"
compose stop
bad=0
for id in $(compose ps -aq); do
  read -r name code < <(docker inspect "$id" --format '{{.Name}} {{.State.ExitCode}}')
  [ "$code" = 0 ] || { log "${name#/} exited $code on stop"; bad=1; }
done
[ "$bad" = 0 ] || exit 1
log "ok: every service healthy, fed, found, stopped with exit 0 ($(($(date +%s) - t0)) s in all)"
