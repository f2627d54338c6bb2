# syntax=docker/dockerfile:1
# One multi-stage recipe for every app; docker-compose.yml and the Helm chart build/use it once per
# app with APP=<name> (dispatcher, registry, adapter-local, adapter-mcp, adapter-cloud, toolhub).
#
# BASE_IMAGE: any image with node (20.19+, 22 or 24) and npm on PATH and a user `node` (uid 1000),
# like the official node images. Where no image registry can be reached, build one from Debian
# packages and the npm registry: `bash scripts/images.sh` (then it is localhost/toolhub-base:...).
ARG BASE_IMAGE=node:24-bookworm-slim

# Build stage: install everything, generate the contract, bundle every app with esbuild, then keep
# only the production dependencies. Nothing here depends on APP, so the stage is built once and
# shared by every app's image.
FROM ${BASE_IMAGE} AS build
WORKDIR /repo
COPY . .
# Build secret `ca` (optional): a CA bundle for a TLS-inspecting proxy between the build and the npm
# registry (scripts/images.sh passes the machine's); it is used by npm only and never stored in a layer.
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --no-audit --no-fund \
 && node scripts/build-apps.mjs \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/onnxruntime-node node_modules/onnxruntime-common
# (In-process embeddings, TOOLHUB_EMBEDDINGS_MODEL_DIR, are for one machine: a container uses an
# embeddings endpoint, TOOLHUB_EMBEDDINGS_URL, and leaves the ~290 MB native runtime out.)

# Runtime stage: production dependencies, the bundle, and the libs' default config files.
# Plain `node` on the bundle (no TypeScript loader, no npm wrapper): one process per container, signals reach it directly.
FROM ${BASE_IMAGE} AS runtime
# Health and /metrics listen on the container's interfaces for the probes and Prometheus; they have no
# auth, so the apps refuse 0.0.0.0 without the explicit TOOLHUB_OPS_PUBLIC opt-in set here.
ENV NODE_ENV=production \
    TOOLHUB_OPS_HOST=0.0.0.0 \
    TOOLHUB_OPS_PUBLIC=true \
    TOOLHUB_HEALTH_PORT=9090 \
    TOOLHUB_METRICS_PORT=9091
WORKDIR /app
COPY --from=build /repo/package.json /repo/package-lock.json ./
COPY --from=build /repo/node_modules ./node_modules
COPY --from=build /repo/libs ./libs
COPY --from=build /repo/apps ./apps
# Declared late: every layer above is shared by all apps' images.
ARG APP
RUN test -n "${APP}" || (echo "build with --build-arg APP=<app>" >&2; exit 1)
COPY --from=build /repo/dist/apps/${APP} ./dist
# Mount points of the state that outlives a container (adapter-local's file root, the dispatcher's
# event outbox), owned by the app's user so a new named volume or PVC starts writable by it.
RUN mkdir -p /data/files /data/outbox && chown node:node /data/files /data/outbox
# The base image's unprivileged user (uid 1000); nothing in /app is writable by it but what
# volumes mount (adapter-local's file root). The root filesystem can be read-only: the apps write
# only to /tmp (an emptyDir or tmpfs) and mounted volumes.
USER node
EXPOSE 9090 9091
# Ready = the app's readiness checks pass (see libs/ops): HTTP /readyz on the metrics port, so the
# check needs nothing but node. Kubernetes uses the gRPC health port instead (native gRPC probes).
# Kept in the image with docker format (OCI images have no HEALTHCHECK: build with --format docker).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "require('http').get('http://127.0.0.1:'+(process.env.TOOLHUB_METRICS_PORT||9091)+'/readyz',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
