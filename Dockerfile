# One image for every process of the workspace (see docker-compose.yml). The apps run from source with tsx, as
# `npm start` runs them: ENTRYPOINT is `node --import tsx`, the command names the entry file and its options.
#
#   docker build -t esp-content-pipeline .
#   docker run --rm -e NATS_URL=nats://host.docker.internal:4222 esp-content-pipeline                  # the whole stack (the launcher)
#   docker run --rm esp-content-pipeline apps/name-server/src/main.ts --nats nats://nats:4222 --wait    # one process

# ---- dependencies (better-sqlite3 has no prebuilt binary reachable everywhere: it may compile, so a toolchain) ----
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: see README (the lock file lacks other platforms' optional packages); it installs the
# locked versions. tsx is a devDependency and is what runs the apps, so devDependencies stay.
RUN npm install --no-audit --no-fund --loglevel=warn

# ---- runtime ----
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    LOG_FORMAT=json \
    ESP_HOME=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY libs ./libs
COPY apps ./apps
COPY tools ./tools
# owned by node, so that a named volume mounted at /data or /data/indexer starts out writable for the apps
RUN mkdir -p /data/indexer && chown -R node:node /data
USER node
# the config server (16005) and the node controller (16015) when run with those ports
EXPOSE 16005 16015
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["tools/launcher/src/main.ts"]
