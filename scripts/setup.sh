#!/usr/bin/env bash
# Sets up arbiter on a fresh Debian machine: system packages (bubblewrap for the code sandbox,
# python3 and g++ for the languages it runs, chromium for the eval-report render test, redis-server
# for the queue that scales grading out to worker processes, and its tests), npm
# dependencies, and the build. Idempotent: a second
# run installs nothing and only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v g++ >/dev/null 2>&1 || need+=(g++)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup: missing system packages: ${need[*]} (run as root or install them)" >&2; exit 1; fi
  echo "setup: installing ${need[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run build --silent
chmod +x dist/cli/main.js
