#!/usr/bin/env bash
# Bundles every entry the image runs into dist/, in one esbuild call (a second or two; nx run-many would spend longer
# starting than building). The layout is the Nx `build` target's, <root>/src/<name>.ts -> dist/<root>/<name>.js, so
# entryNodeArgs of @esp/cli-options finds the build of a source entry named in a node profile.
#
#   tools/docker/build-dist.sh            # the Dockerfile's build stage runs it with ESBUILD=<its esbuild>
set -euo pipefail
cd "$(dirname "$0")/../.."

entries=()
for main in apps/*/src/main.ts; do
  root="${main%/src/main.ts}"
  entries+=("$root/main=$main")
done
# the launcher and its health checks, the search CLI
for tool in tools/launcher/src/main.ts tools/launcher/src/health.ts tools/launcher/src/ping.ts tools/search-cli/src/main.ts; do
  root="${tool%/src/*}"
  name="$(basename "$tool" .ts)"
  entries+=("$root/$name=$tool")
done
# the compose stack's one-shot generator of the secured bus (dist/tools/launcher/bus/generate-main.js)
entries+=("tools/launcher/bus/generate-main=tools/launcher/src/bus/generate-main.ts")
# and of its JetStream streams (dist/tools/launcher/bus/jetstream-setup-main.js)
entries+=("tools/launcher/bus/jetstream-setup-main=tools/launcher/src/bus/jetstream-setup-main.ts")

exec "${ESBUILD:-node_modules/.bin/esbuild}" "${entries[@]}" --bundle --platform=node --format=esm --target=node20 --packages=external \
  --tsconfig=tsconfig.base.json --outdir=dist --log-level=warning
