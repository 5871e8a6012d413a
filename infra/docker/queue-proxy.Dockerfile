# syntax=docker/dockerfile:1
# The pod sidecar (`thaw-queue-proxy`), configured by Knative's environment variables.
# Build context: the repository root. `npm run images` (tools/images) builds it; by hand, after build.Dockerfile:
#   docker build -f infra/docker/queue-proxy.Dockerfile -t registry.example/thaw/queue-proxy:0.1.0 .
# apps/cli/test/dockerfiles.test.ts checks the copied tree and runs the entrypoint from that layout.
# NODE_IMAGE: the run-time base (tools/images gives a distroless localhost/thaw/node-runtime:<node version>);
# BUILD_IMAGE: the shared build stage made from build.Dockerfile.
ARG NODE_IMAGE=node:20.19-bookworm-slim
ARG BUILD_IMAGE=localhost/thaw/build:local

FROM ${BUILD_IMAGE} AS build

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
# Its run-time tree only (tools/images/src/deploy.ts): the workspace packages it reaches, their dist/, and
# their production dependencies at the same paths as in the monorepo.
COPY --from=build /out/queue-proxy/ ./
# A numeric user, so kubelet can check runAsNonRoot; nothing is written at run time (read-only root fs).
USER 1000:1000
ENTRYPOINT ["node", "--min-semi-space-size=8", "--max-semi-space-size=8", "--initial-old-space-size=8", "apps/queue-proxy/dist/queue-proxy.mjs"]
