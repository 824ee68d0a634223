# bvsync: one image for every role (worker, scheduler, dashboard, report, sync, backfill); the command picks it.
# Debian (glibc) rather than Alpine: DuckDB's prebuilt Node bindings are built against glibc.
FROM node:20-bookworm-slim

# MALLOC_ARENA_MAX: glibc's per-thread arenas keep memory DuckDB's threads freed; two arenas keep a 1,000,000-row
# backfill ~25 MB lower and its growth over a 100,000-row one at 1.14 x instead of 1.19 x (docs/performance.md).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    BVSYNC_DB=/data/bvsync.duckdb \
    REDIS_URL=redis://redis:6379
WORKDIR /app

# Dependencies first, so code changes rebuild only the layers below. tsx runs the TypeScript sources: no build step.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY bin ./bin
COPY src ./src
COPY sql ./sql
COPY tsconfig.json bvsync.config.example.json ./

# The DuckDB files (the worker's working file and the published copy analysts read) live on a volume.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node

# 3000: `bvsync dashboard`; 9464: `bvsync worker --metrics-port 9464` (Prometheus' conventional exporter range).
EXPOSE 3000 9464
# The heap caps keep a worker within a 512 MB container whatever the warehouse size: docs/operations.md, "Sizing a container".
ENTRYPOINT ["node", "--max-old-space-size=192", "--max-semi-space-size=8", "bin/bvsync.js"]
CMD ["worker", "--metrics-port", "9464"]
