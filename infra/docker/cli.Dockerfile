# syntax=docker/dockerfile:1
# The CLI (`thaw`: `thaw k8s render`, `thaw validate`).
# Build context: the repository root, e.g.
#   docker build -f infra/docker/cli.Dockerfile -t ghcr.io/thaw-dev/cli:0.1.0 .
# apps/cli/test/dockerfiles.test.ts checks every path copied below and runs the entrypoint from that layout.
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund \
  && npx turbo run build --filter=thaw... \
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
COPY --from=build /src/packages/autoscaler/package.json ./packages/autoscaler/
COPY --from=build /src/packages/autoscaler/dist ./packages/autoscaler/dist
COPY --from=build /src/packages/readiness/package.json ./packages/readiness/
COPY --from=build /src/packages/readiness/dist ./packages/readiness/dist
COPY --from=build /src/packages/config/package.json ./packages/config/
COPY --from=build /src/packages/config/dist ./packages/config/dist
# kubernetes: EndpointSlice informers, the scale writer and the Lease election (on @kubernetes/client-node).
COPY --from=build /src/packages/kubernetes/package.json ./packages/kubernetes/
COPY --from=build /src/packages/kubernetes/dist ./packages/kubernetes/dist
COPY --from=build /src/apps/activator/package.json ./apps/activator/
COPY --from=build /src/apps/activator/dist ./apps/activator/dist
COPY --from=build /src/apps/autoscaler/package.json ./apps/autoscaler/
COPY --from=build /src/apps/autoscaler/dist ./apps/autoscaler/dist
COPY --from=build /src/apps/ingress-hook/package.json ./apps/ingress-hook/
COPY --from=build /src/apps/ingress-hook/dist ./apps/ingress-hook/dist
COPY --from=build /src/apps/queue-proxy/package.json ./apps/queue-proxy/
COPY --from=build /src/apps/queue-proxy/dist ./apps/queue-proxy/dist
COPY --from=build /src/apps/cli/package.json ./apps/cli/
COPY --from=build /src/apps/cli/dist ./apps/cli/dist
COPY --from=build /src/apps/cli/node_modules ./apps/cli/node_modules
COPY --from=build /src/apps/activator/node_modules ./apps/activator/node_modules
COPY --from=build /src/apps/autoscaler/node_modules ./apps/autoscaler/node_modules
# A numeric user, so kubelet can check runAsNonRoot; nothing is written at run time (read-only root fs).
USER 1000:1000
ENTRYPOINT ["node", "apps/cli/dist/main.js"]
