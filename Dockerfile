# syntax=docker/dockerfile:1
# One multi-stage recipe for every app; docker-compose.yml and the Helm chart build/use it once per
# app with APP=<name> (dispatcher, registry, adapter-local, adapter-mcp, adapter-cloud, toolhub).
# Build stage: install everything, generate the contract, bundle the app with esbuild.
FROM node:20-bookworm-slim AS build
ARG APP
WORKDIR /repo
COPY . .
RUN test -n "${APP}" || (echo "build with --build-arg APP=<app>" >&2; exit 1)
RUN npm install --no-audit --no-fund && node scripts/build.mjs apps/${APP} src/main.ts

# Runtime stage: production dependencies, the bundle, and the libs' default config files.
# Plain `node` on the bundle (no TypeScript loader, no npm wrapper): one process per container, signals reach it directly.
FROM node:20-bookworm-slim AS runtime
ARG APP
# Health and /metrics listen on the container's interfaces for the probes and Prometheus; they have no
# auth, so the apps refuse 0.0.0.0 without the explicit TOOLHUB_OPS_PUBLIC opt-in set here.
ENV NODE_ENV=production \
    TOOLHUB_OPS_HOST=0.0.0.0 \
    TOOLHUB_OPS_PUBLIC=true \
    TOOLHUB_HEALTH_PORT=9090 \
    TOOLHUB_METRICS_PORT=9091
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=build /repo/libs ./libs
COPY --from=build /repo/apps ./apps
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /repo/dist/apps/${APP} ./dist
# The node image's unprivileged user (uid 1000); nothing in /app is writable by it but what
# volumes mount (adapter-local's file root).
USER node
EXPOSE 9090 9091
# Ready = the app's readiness checks pass (see libs/ops): HTTP /readyz on the metrics port, so the
# check needs nothing but node. Kubernetes uses the gRPC health port instead (native gRPC probes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "require('http').get('http://127.0.0.1:'+(process.env.TOOLHUB_METRICS_PORT||9091)+'/readyz',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
