# One production image for every process of the workspace (see docker-compose.yml and docs/operations/docker.md): the
# apps bundled with esbuild into dist/ (tools/docker/build-dist.sh), production dependencies only, plain node, user
# node (uid 1000). ENTRYPOINT is `node`; the command names the built entry and its options.
#
#   docker build -t esp-content-pipeline .                       # or --build-arg NODE_IMAGE=<a Node 20 image>
#   docker run --rm -e NATS_URL=nats://host.docker.internal:4222 esp-content-pipeline                  # the whole stack (the launcher)
#   docker run --rm esp-content-pipeline dist/apps/name-server/main.js --nats nats://nats:4222 --wait  # one process
#
# Layers: package.json and package-lock.json alone decide the npm layers, so a source change only re-runs the bundle
# (about a second) and the final COPY.

# any Debian-based Node 20 image with npm and a user "node" (uid 1000)
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- toolchain: better-sqlite3 and zeromq may compile when no prebuilt binary is reachable ----
FROM ${NODE_IMAGE} AS toolchain
WORKDIR /app
# the Node headers of the image itself (the official image and esp-local/node have them): node-gyp downloads none
ENV npm_config_nodedir=/usr/local
# no ca-certificates package: installing it would regenerate /etc/ssl/certs/ca-certificates.crt, which a base image may
# have been given with a site's own CA (npm's cafile); npm and node-gyp use Node's own CA list otherwise
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

# ---- production dependencies only: no tsx, TypeScript, test or lint tooling ever enters the image ----
FROM toolchain AS prod-deps
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: see README (the lock file lacks other platforms' optional packages); it installs the
# locked versions. The npm cache is a BuildKit cache mount: a changed lock file downloads only what changed.
RUN --mount=type=cache,target=/root/.npm \
    npm install --omit=dev --no-audit --no-fund --loglevel=warn

# ---- the bundles: esbuild alone (the locked version, beside the tree), not every devDependency ----
FROM prod-deps AS build
RUN --mount=type=cache,target=/root/.npm \
    npm install --prefix /esbuild --no-save --no-audit --no-fund --loglevel=warn \
      "esbuild@$(node -p "require('./package-lock.json').packages['node_modules/esbuild'].version")"
COPY tsconfig.base.json ./
COPY libs ./libs
COPY apps ./apps
COPY tools ./tools
RUN ESBUILD=/esbuild/node_modules/.bin/esbuild tools/docker/build-dist.sh

# ---- runtime ----
FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production \
    LOG_FORMAT=json \
    ESP_HOME=/data
COPY --from=prod-deps /app/node_modules ./node_modules
# "type": "module" for the ESM bundles
COPY package.json ./
# node profiles and configuration the services are started with (the launcher's profiles, the compose stack's
# config server directory and crawl configuration)
COPY tools/launcher/profiles ./tools/launcher/profiles
COPY tools/launcher/docker ./tools/launcher/docker
COPY --from=build /app/dist ./dist
# owned by node, so that a named volume mounted under /data starts out writable for the apps
# the config server writes collections.json when a crawl adds a collection (npm run crawl)
RUN mkdir -p /data/indexer /data/dup /data/mns /data/ns && chown -R node:node /data /app/tools/launcher/docker/config
USER node
# the config server (16005) and the node controller (16015) when run with those ports
EXPOSE 16005 16015
ENTRYPOINT ["node"]
CMD ["dist/tools/launcher/main.js"]
