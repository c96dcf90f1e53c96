#!/usr/bin/env bash
# The production image (Dockerfile) against the image the workspace had before it, which ran the apps from source
# with tsx (the Dockerfile of BEFORE_REF, by default the last commit that had it): image size, and for every service
# of docker-compose.yml the time from container start to its "ready" log line and to healthy, and its memory once the
# stack is idle. Both stacks run the same services with the same options, one after the other (never both at once);
# the "before" stack runs each entry from source (`node --import tsx apps/<app>/src/main.ts`) and its health checks
# with tsx too.
#
#   NODE_IMAGE=esp-local/node:20 NATS_IMAGE=esp-local/nats:2.9 tools/docker/measure-image.sh
#
# Environment: NODE_IMAGE, NATS_IMAGE (as for docker compose), PROJECT (compose project prefix, default esp-measure;
# the images are tagged <PROJECT>/esp:after and <PROJECT>/tsx:before), BEFORE_REF (git ref of the old Dockerfile),
# IDLE_SECONDS (wait before docker stats, default 20), NATS_PORT / CONFIG_SERVER_PORT / NODE_CONTROLLER_PORT (host
# ports, defaults 14222 / 16105 / 16115). Prints one table; the last line is image_size_ratio=<after/before>.
set -euo pipefail
cd "$(dirname "$0")/../.."

export NODE_IMAGE="${NODE_IMAGE:-node:20-bookworm-slim}"
export NATS_IMAGE="${NATS_IMAGE:-nats:2.10-alpine}"
export NATS_PORT="${NATS_PORT:-14222}" CONFIG_SERVER_PORT="${CONFIG_SERVER_PORT:-16105}" NODE_CONTROLLER_PORT="${NODE_CONTROLLER_PORT:-16115}"
export DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1
PROJECT="${PROJECT:-esp-measure}"
# the last commit whose Dockerfile ran the apps with tsx
BEFORE_REF="${BEFORE_REF:-2783523f4583d797d9887127fe6620ab1478e427}"
IDLE_SECONDS="${IDLE_SECONDS:-20}"
AFTER_IMAGE="$PROJECT/esp:after"
BEFORE_IMAGE="$PROJECT/tsx:before"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log() { echo "measure-image: $*" >&2; }

# ---- the images ----
log "building $AFTER_IMAGE (docker compose build)"
ESP_IMAGE="$AFTER_IMAGE" docker compose -p "$PROJECT-after" build -q
# The old Dockerfile as it was, on NODE_IMAGE, with the two changes any build on such a base needs (Node's headers
# for node-gyp, npm_config_nodedir; no ca-certificates package, which would replace the base image's CA bundle) and
# the data directories of the crawler services, which it did not run.
log "building $BEFORE_IMAGE from $BEFORE_REF:Dockerfile"
git show "$BEFORE_REF:Dockerfile" |
  sed -e "s#^FROM node:20-bookworm-slim\(.*\)#FROM $NODE_IMAGE\1\nENV npm_config_nodedir=/usr/local#" -e 's# ca-certificates##' \
    -e 's#mkdir -p /data/indexer#mkdir -p /data/indexer /data/dup /data/mns#' >"$work/Dockerfile.before"
docker build -q -f "$work/Dockerfile.before" -t "$BEFORE_IMAGE" . >/dev/null

# ---- the compose files: the stack as it is, and the same with each built entry run from source with tsx ----
ESP_IMAGE="$AFTER_IMAGE" docker compose -p "$PROJECT-after" config --format json >"$work/after.json"
node - "$work/after.json" "$work/before.json" "$BEFORE_IMAGE" <<'JS'
const fs = require('node:fs');
const [src, dst, image] = process.argv.slice(2);
const c = JSON.parse(fs.readFileSync(src, 'utf8'));
const toSource = (a) => a.replace(/^dist\/(.+)\/([^/]+)\.js$/, '$1/src/$2.ts');
for (const s of Object.values(c.services)) {
  if (!s.build) continue;
  delete s.build;
  s.image = image;
  // the old image's ENTRYPOINT is `node --import tsx`: the command starts with the entry
  s.command = s.command.map((a, i) => (i === 0 ? toSource(a) : a));
  if (s.healthcheck?.test?.[1] === 'node') {
    s.healthcheck.test = ['CMD', 'node', '--import', 'tsx', ...s.healthcheck.test.slice(2).map(toSource)];
    // a check that compiles its TypeScript first needs several seconds of CPU while the stack starts: the limits
    // of the old compose file's only check (the name server's), not ours, or the stack never comes up
    Object.assign(s.healthcheck, { timeout: '30s', start_period: '120s', retries: 12 });
  }
}
delete c.name;
// the volumes and the network are the project's own, not the "after" project's
for (const k of ['volumes', 'networks']) for (const v of Object.values(c[k] ?? {})) delete v.name;
fs.writeFileSync(dst, JSON.stringify(c));
JS

size() { docker image inspect "$1" --format '{{.Size}}'; }
ms() { date -d "$1" +%s%3N; }

# Starts a stack, waits until every service is healthy and idle, and writes one line per app service:
# <service> <start-to-ready ms> <start-to-healthy ms> <memory MiB>
measure() { # <label> <compose file>
  local label="$1" file="$2" p="$PROJECT-$1"
  log "$label: up --wait"
  docker compose -p "$p" -f "$file" down -v >/dev/null 2>&1 || true
  # when each container turns healthy, followed as it happens: the engine keeps only its last 256 events, and every
  # health check is several; a container keeps only its last five check results
  docker events --filter "label=com.docker.compose.project=$p" --filter event=health_status \
    --format '{{.TimeNano}} {{.Actor.Attributes.name}} {{.Status}}' >"$work/$label.events" &
  local events=$!
  if ! docker compose -p "$p" -f "$file" up -d --wait >"$work/$label.up" 2>&1; then
    tail -5 "$work/$label.up" >&2
    for id in $(docker compose -p "$p" -f "$file" ps -aq); do
      [ "$(docker inspect "$id" --format '{{if .State.Health}}{{.State.Health.Status}}{{end}}')" = unhealthy ] || continue
      docker inspect "$id" --format '{{.Name}}: {{range .State.Health.Log}}{{.ExitCode}} {{.Output}}{{end}}' >&2
      docker logs --tail 20 "$id" >&2 2>&1
    done
    kill "$events"
    docker compose -p "$p" -f "$file" down -v >/dev/null 2>&1
    return 1
  fi
  sleep "$IDLE_SECONDS"
  docker stats --no-stream --format '{{.Name}} {{.MemUsage}}' >"$work/$label.stats"
  kill "$events"
  for svc in $(docker compose -p "$p" -f "$file" config --services); do
    [ "$svc" = nats ] && continue
    local id started ready healthy mem
    id="$(docker compose -p "$p" -f "$file" ps -q "$svc")"
    started="$(ms "$(docker inspect "$id" --format '{{.State.StartedAt}}')")"
    ready="$(docker logs --timestamps "$id" 2>&1 | grep -m1 '^[^ ]* {.*"msg":"ready"' | cut -d' ' -f1 || true)"
    healthy="$(awk -v n="$p-$svc-1" '$2 == n && $4 == "healthy" { print int($1 / 1000000); exit }' "$work/$label.events")"
    mem="$(awk -v n="$p-$svc-1" '$1 == n { print $2 }' "$work/$label.stats")"
    echo "$svc $([ -n "$ready" ] && echo $(($(ms "$ready") - started)) || echo -) $([ -n "$healthy" ] && echo $((healthy - started)) || echo -) $mem"
  done >"$work/$label.rows"
  docker compose -p "$p" -f "$file" down -v >/dev/null 2>&1
}

measure before "$work/before.json"
measure after "$work/after.json"

# memory as docker stats prints it (e.g. 61.2MiB, 1.1GiB) in MiB
node - "$work/before.rows" "$work/after.rows" "$(size "$BEFORE_IMAGE")" "$(size "$AFTER_IMAGE")" <<'JS'
const fs = require('node:fs');
const [bf, af, bs, as] = process.argv.slice(2);
const mib = (s) => {
  const m = /^([\d.]+)([KMG]i?B)$/.exec(s ?? '');
  if (!m) return NaN;
  return Number(m[1]) * { KiB: 1 / 1024, MiB: 1, GiB: 1024, kB: 1 / 1024, MB: 1, GB: 1024 }[m[2]];
};
const rows = (f) => new Map(fs.readFileSync(f, 'utf8').trim().split('\n').map((l) => { const [s, r, h, m] = l.split(' '); return [s, { r: Number(r), h: Number(h), m: mib(m) }]; }));
const b = rows(bf), a = rows(af);
const pad = (s, n) => String(s).padEnd(n - 1) + ' ';
const num = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const out = [];
out.push(`${pad('figure', 50)}${pad('before (tsx)', 16)}${pad('after (dist)', 16)}after/before`);
const line = (name, x, y, d = 1) => out.push(`${pad(name, 50)}${pad(num(x, d), 16)}${pad(num(y, d), 16)}${num(y / x, 2)}`);
line('image size (MB)', Number(bs) / 1e6, Number(as) / 1e6);
let sb = { r: 0, h: 0, m: 0 }, sa = { r: 0, h: 0, m: 0 };
for (const [svc, x] of b) {
  const y = a.get(svc) ?? { r: NaN, h: NaN, m: NaN };
  line(`${svc}: start to ready (s)`, x.r / 1000, y.r / 1000);
  line(`${svc}: start to healthy (s)`, x.h / 1000, y.h / 1000);
  line(`${svc}: memory idle (MiB)`, x.m, y.m);
  sb = { r: sb.r + x.r, h: sb.h + x.h, m: sb.m + x.m };
  sa = { r: sa.r + y.r, h: sa.h + y.h, m: sa.m + y.m };
}
line('all app services: memory idle (MiB)', sb.m, sa.m);
line('all app services: sum of start to ready (s)', sb.r / 1000, sa.r / 1000);
console.log(out.join('\n'));
console.log(`memory_ratio=${(sa.m / sb.m).toFixed(3)}`);
console.log(`start_to_ready_ratio=${(sa.r / sb.r).toFixed(3)}`);
console.log(`image_size_ratio=${(Number(as) / Number(bs)).toFixed(3)}`);
JS
