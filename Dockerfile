# syntax=docker/dockerfile:1
# Cordon in one image, written to the conventions of the official Node.js images: a build stage with
# the compilers for the native addons (better-sqlite3, @cordon/udp-batch), a slim runtime stage that
# runs as the image's unprivileged `node` user. docs/operations.md "Containers" says how to run it;
# no image is built in this repository's CI (it has no registry to pull node:20 from): a test
# checks this file's conventions instead (test/deploy/service-files.test.ts).
ARG NODE_VERSION=20.19

FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    CORDON_DATA_DIR=/var/lib/cordon \
    CORDON_HTTP_ADDR=0.0.0.0:8080 \
    CORDON_DNS_ADDR=0.0.0.0:5353 \
    CORDON_BLOCKPAGE_ADDR=0.0.0.0:8081
# glibc's heap, as the resolver's service files set it (mallopt(3) "ENVIRONMENT"; docs/decisions.md
# "The addon does UDP I/O only"): fixed thresholds return freed memory, at most two arenas.
ENV MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /opt/cordon
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/apps ./apps
COPY --from=build /src/packages ./packages
COPY --from=build /src/docs ./docs
RUN mkdir -p /var/lib/cordon && chown node:node /var/lib/cordon && chmod 0700 /var/lib/cordon
USER node
VOLUME ["/var/lib/cordon"]
# Console and /restapi, DNS over UDP and TCP, the block page.
EXPOSE 8080/tcp 5353/udp 5353/tcp 8081/tcp
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM flushes the query log before exiting (docs/operations.md "Shutdown").
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "apps/cli/dist/cordon.mjs"]
CMD ["serve"]
