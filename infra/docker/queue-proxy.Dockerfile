# syntax=docker/dockerfile:1
# The pod sidecar (`thaw-queue-proxy`), configured by Knative's environment variables.
# Build context: the repository root, e.g.
#   docker build -f infra/docker/queue-proxy.Dockerfile -t ghcr.io/thaw-dev/queue-proxy:0.1.0 .
# apps/cli/test/dockerfiles.test.ts checks every path copied below and runs the entrypoint from that layout.
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund \
  && npx turbo run build --filter=@thaw/queue-proxy... \
  && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
# Workspace packages are symlinks in node_modules (@thaw/* -> ../../packages/*), so each is copied too.
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/packages/clock/package.json ./packages/clock/
COPY --from=build /src/packages/clock/dist ./packages/clock/dist
COPY --from=build /src/packages/command-line/package.json ./packages/command-line/
COPY --from=build /src/packages/command-line/dist ./packages/command-line/dist
COPY --from=build /src/packages/protocol/package.json ./packages/protocol/
COPY --from=build /src/packages/protocol/dist ./packages/protocol/dist
COPY --from=build /src/packages/activation/package.json ./packages/activation/
COPY --from=build /src/packages/activation/dist ./packages/activation/dist
COPY --from=build /src/packages/readiness/package.json ./packages/readiness/
COPY --from=build /src/packages/readiness/dist ./packages/readiness/dist
COPY --from=build /src/apps/queue-proxy/package.json ./apps/queue-proxy/
COPY --from=build /src/apps/queue-proxy/dist ./apps/queue-proxy/dist
# A numeric user, so kubelet can check runAsNonRoot; nothing is written at run time (read-only root fs).
USER 1000:1000
ENTRYPOINT ["node", "--min-semi-space-size=8", "--max-semi-space-size=8", "--initial-old-space-size=8", "apps/queue-proxy/dist/main.js"]
