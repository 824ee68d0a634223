# bvsync: one image for every role (worker, scheduler, dashboard, report, sync, backfill); the command picks it.
# Debian (glibc) rather than Alpine: DuckDB's prebuilt Node bindings are built against glibc.

# Stage 1: compile the TypeScript sources to dist/ (`npm run build`), with the development dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds, and the sources are not here yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# Stage 2: the runtime dependencies and the compiled code only; no TypeScript, no tsx, no sources.
FROM node:20-bookworm-slim

# MALLOC_ARENA_MAX: glibc's per-thread arenas keep memory DuckDB's threads freed; two arenas keep a 1,000,000-row
# backfill ~25 MB lower and its growth over a 100,000-row one at 1.14 x instead of 1.19 x (docs/performance.md).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    BVSYNC_DB=/data/bvsync.duckdb \
    REDIS_URL=redis://redis:6379
WORKDIR /app

# Dependencies first, so code changes rebuild only the layers below. --ignore-scripts: `prepare` needs TypeScript.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY bin/bvsync.js ./bin/
COPY --from=build /app/dist ./dist
COPY sql ./sql
COPY bvsync.config.example.json ./

# The DuckDB files (the worker's working file and the published copy analysts read) live on a volume.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
# Not root: the image's own `node` user (uid 1000), which owns /data. Kubernetes runs it as the same uid.
USER node

# 3000: `bvsync dashboard`; 9464: `bvsync worker --metrics-port 9464` (Prometheus' conventional exporter range), with
# the probes /healthz and /readyz.
EXPOSE 3000 9464
# The heap caps keep a worker within a 512 MB container whatever the warehouse size: docs/operations.md, "Sizing a container".
ENTRYPOINT ["node", "--max-old-space-size=192", "--max-semi-space-size=8", "bin/bvsync.js"]
CMD ["worker", "--metrics-port", "9464"]
