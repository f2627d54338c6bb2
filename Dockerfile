# syntax=docker/dockerfile:1
# One multi-stage recipe for every app; docker-compose.yml builds it once per app with APP=<name>.
# Build stage: install everything, generate the contract, bundle the app with esbuild.
FROM node:20-bookworm-slim AS build
ARG APP
WORKDIR /repo
COPY . .
RUN npm install --no-audit --no-fund && node scripts/build.mjs apps/${APP} src/main.ts

# Runtime stage: production dependencies, the bundle and the proto sources (for gRPC reflection).
FROM node:20-bookworm-slim AS runtime
ARG APP
ENV NODE_ENV=production TOOLHUB_PROTO_DIR=/app/proto
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=build /repo/libs ./libs
COPY --from=build /repo/apps ./apps
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /repo/dist/apps/${APP} ./dist
COPY proto ./proto
USER node
CMD ["node", "dist/main.js"]
