# syntax=docker/dockerfile:1
# The one build stage every component image copies from: `npm ci` once, every component built, then each
# component's run-time tree (production dependencies only, per component) written to /out/<component>.
# Build context: the repository root. `npm run images` (tools/images) builds it; by hand:
#   docker build -f infra/docker/build.Dockerfile -t localhost/thaw/build:local \
#     --secret id=npmrc,src=$HOME/.npmrc --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt .
# The npm config and CA bundle are secret mounts, present only while `npm ci` runs: never in a layer.
# NODE_IMAGE needs node, npm and a shell (tools/images gives localhost/thaw/node-build:<node version>).
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE}
WORKDIR /src
# Manifests first, so a source change reuses the `npm ci` layer. Every workspace is listed
# (apps/cli/test/dockerfiles.test.ts checks that none is missing).
COPY package.json package-lock.json .npmrc ./
COPY apps/activator/package.json apps/activator/
COPY apps/autoscaler/package.json apps/autoscaler/
COPY apps/cli/package.json apps/cli/
COPY apps/ingress-hook/package.json apps/ingress-hook/
COPY apps/queue-proxy/package.json apps/queue-proxy/
COPY examples/hello/package.json examples/hello/
COPY packages/activation/package.json packages/activation/
COPY packages/autoscaler/package.json packages/autoscaler/
COPY packages/clock/package.json packages/clock/
COPY packages/config/package.json packages/config/
COPY packages/command-line/package.json packages/command-line/
COPY packages/kubernetes/package.json packages/kubernetes/
COPY packages/protocol/package.json packages/protocol/
COPY packages/readiness/package.json packages/readiness/
COPY tools/bench-kit/package.json tools/bench-kit/
COPY tools/conformance/package.json tools/conformance/
COPY tools/consumer-test/package.json tools/consumer-test/
COPY tools/edge-e2e/package.json tools/edge-e2e/
COPY tools/guards/package.json tools/guards/
COPY tools/h1-diff/package.json tools/h1-diff/
COPY tools/images/package.json tools/images/
COPY tools/real-cluster/package.json tools/real-cluster/
# NPM_CONFIG_USERCONFIG names the mounted npmrc (it names the mounted CA bundle as its cafile); without
# the secrets npm uses its defaults.
RUN --mount=type=secret,id=npmrc --mount=type=secret,id=npm_ca \
  NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --no-audit --no-fund
COPY . .
# turbo's cache survives between builds (a cache mount, not a layer): after a source change only the changed
# packages and their dependents compile again.
RUN --mount=type=cache,id=thaw-turbo,target=/src/.turbo \
  TURBO_TELEMETRY_DISABLED=1 npx turbo run build --filter=thaw... --filter=@thaw/images --output-logs=errors-only \
  && node tools/images/dist/deploy-cli.js /src /out
