# One image for all three Custos services; compose picks the command per service:
#   node apps/auth-service/dist/main.js | node apps/pap-service/dist/main.js | node apps/pdp-service/dist/main.js
# Works with the classic builder and BuildKit (no --mount features).

# ---- build: install everything, compile the TypeScript, then drop dev dependencies ----
FROM node:20-bookworm-slim AS build
# libxmljs2 builds from source with node-gyp when no prebuilt binary can be fetched.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV TURBO_TELEMETRY_DISABLED=1 \
    NEXT_TELEMETRY_DISABLED=1 \
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
COPY packages/console/package.json       packages/console/
COPY apps/auth-service/package.json      apps/auth-service/
COPY apps/pap-service/package.json       apps/pap-service/
COPY apps/pdp-service/package.json       apps/pdp-service/
COPY tests/system/package.json           tests/system/
# The npm release the project pins in "packageManager" (the image ships an older one).
RUN npm install -g "$(node -p "require('./package.json').packageManager")" \
 && npm ci

COPY . .
RUN npx turbo run build \
      --filter=@custos/auth-service... --filter=@custos/pap-service... --filter=@custos/pdp-service... \
 && npm prune --omit=dev \
 && rm -rf .turbo node_modules/.cache

# ---- runtime: production dependencies and compiled output only ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
# Workspace folders: dist/, migrations/, package.json (node_modules/@custos/* link to them).
COPY --from=build /app/packages ./packages
COPY --from=build /app/apps ./apps
USER node
# pdp 8080 (PDP_PORT), pap 8081 (PAP_PORT), auth 8082 (AUTH_PORT)
EXPOSE 8080 8081 8082
CMD ["node", "apps/pdp-service/dist/main.js"]
