# One image for all three Custos services; compose picks the command per service:
#   node apps/auth-service/dist/main.js | node apps/pap-service/dist/main.js | node apps/pdp-service/dist/main.js
# Works with the classic builder, BuildKit and podman (no --mount features). Its size and how it was measured:
# README, "Run it with Docker".

# ---- build: install everything, compile the TypeScript, then keep what the three services run ----
FROM node:20-bookworm-slim AS build
# libxmljs2 builds from source with node-gyp when no prebuilt binary can be fetched.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV TURBO_TELEMETRY_DISABLED=1 \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
WORKDIR /app

# Manifests first, so dependency installation stays cached while only sources change.
# Every workspace's package.json must be here for `npm ci`: add new workspaces to this list.
COPY package.json package-lock.json ./
COPY packages/contracts/package.json     packages/contracts/
COPY packages/policy-engine/package.json packages/policy-engine/
COPY packages/service-kit/package.json   packages/service-kit/
COPY packages/test-kit/package.json      packages/test-kit/
COPY packages/embedded/package.json      packages/embedded/
COPY packages/pep/package.json           packages/pep/
COPY packages/cli/package.json           packages/cli/
COPY packages/console/package.json       packages/console/
COPY apps/auth-service/package.json      apps/auth-service/
COPY apps/pap-service/package.json       apps/pap-service/
COPY apps/pdp-service/package.json       apps/pdp-service/
COPY tests/system/package.json           tests/system/
COPY tests/security/package.json         tests/security/
COPY tests/browser/package.json          tests/browser/
COPY tests/compose/package.json          tests/compose/
COPY tests/packages/package.json         tests/packages/
# The npm release the project pins in "packageManager" (the image ships an older one).
RUN npm install -g "$(node -p "require('./package.json').packageManager")" \
 && npm ci

COPY . .
RUN npx turbo run build --output-logs=errors-only \
      --filter=@custos/auth-service... --filter=@custos/pap-service... --filter=@custos/pdp-service...

# A pruned workspace: only the three services and the packages they import stay workspaces, so `npm prune` drops
# the dev dependencies and everything only the CLI, the embedded mode and the test suites use.
RUN rm -rf packages/cli packages/embedded packages/test-kit tests \
 && npm prune --omit=dev \
 && rm -rf node_modules/libxmljs2/build/Release/obj.target node_modules/libxmljs2/src node_modules/libxmljs2/vendor \
 # Type declarations, source maps and documentation are half of node_modules and nothing the services read.
 && find node_modules packages apps -type f \( -name '*.d.ts' -o -name '*.d.?ts' -o -name '*.map' -o -name '*.md' \) -delete \
 && mkdir -p /runtime/packages /runtime/apps \
 && cp -a package.json node_modules deploy/healthcheck.js /runtime/ \
 && for dir in packages/* apps/*; do \
      mkdir -p "/runtime/$dir" && cp -a "$dir/package.json" "$dir/dist" "/runtime/$dir/"; \
      if [ -d "$dir/migrations" ]; then cp -a "$dir/migrations" "/runtime/$dir/"; fi; \
    done

# ---- runtime: node, production dependencies and compiled output only ----
# Debian without npm, yarn or headers: the node binary is all the services need from the build image.
FROM debian:bookworm-slim AS runtime
COPY --from=build /usr/local/bin/node /usr/local/bin/node
RUN groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --no-create-home --home-dir /app --shell /usr/sbin/nologin node
ENV NODE_ENV=production
WORKDIR /app
# Owned by root: the services cannot change their own code.
COPY --from=build /runtime/ ./
USER node
# pdp 8080 (PDP_PORT), pap 8081 (PAP_PORT), auth 8082 (AUTH_PORT)
EXPOSE 8080 8081 8082
# Asks /health/ready of whichever service this container runs.
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 CMD ["node", "healthcheck.js"]
# SIGTERM drains: readiness turns 503, the listener closes, requests in flight are answered, then the process ends.
STOPSIGNAL SIGTERM
CMD ["node", "apps/pdp-service/dist/main.js"]
