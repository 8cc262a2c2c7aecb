# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and build better-sqlite3 from source.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

# Runtime stage: only production dependencies, compiled code, mappings, schemas and migrations.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    ROUTEGATE_DB=/data/routegate.db \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY mappings ./mappings
COPY schemas ./schemas
COPY src/store/migrations ./src/store/migrations
COPY src/store/pg/migrations ./src/store/pg/migrations
COPY src/dashboard/static ./src/dashboard/static
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--max-old-space-size=512", "dist/src/server.js"]
