# syntax=docker/dockerfile:1
# The sample app of examples/hello (no dependencies), as infra/kubernetes runs it.
# Build context: the repository root, e.g.
#   docker build -f infra/docker/example-hello.Dockerfile -t registry.example/thaw/example-hello:0.1.0 .
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY examples/hello/server.mjs examples/hello/streams.mjs ./
USER 1000:1000
ENTRYPOINT ["node", "server.mjs"]
