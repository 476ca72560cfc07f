#!/usr/bin/env bash
# Sets up arbiter on a fresh Debian machine: system packages (bubblewrap for the code sandbox;
# the toolchains of the languages it runs: python3, gcc/g++, golang-go, rustc, the headless JDK,
# bash; node is arbiter's own runtime and TypeScript an npm dependency; chromium for the
# eval-report render test, redis-server for the queue that scales grading out to worker
# processes, and its tests; wrk for the server benchmark), npm dependencies, and the build. Idempotent: a package is installed
# only when its command is missing, so a second run installs nothing and only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v g++ >/dev/null 2>&1 || need+=(g++)
# language toolchains, installed without recommends (rustc would bring cargo, the JDK desktop bits)
langs=()
command -v gcc >/dev/null 2>&1 || langs+=(gcc)
command -v go >/dev/null 2>&1 || langs+=(golang-go)
# rustc alone (no cargo: programs are single files compiled with rustc in the sandbox)
command -v rustc >/dev/null 2>&1 || langs+=(rustc)
{ command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1; } || langs+=(default-jdk-headless)
command -v bash >/dev/null 2>&1 || langs+=(bash)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# jq: the docs' one-liners that turn other tools' result files into JSONL (docs/agents.md)
command -v jq >/dev/null 2>&1 || need+=(jq)
# wrk: the server benchmark's load generator (bench/server.mjs; a C client, so on a 2-core machine it
# saturates the server's core from the other one); taskset (util-linux) pins the two apart
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
if [ ${#need[@]} -gt 0 ] || [ ${#langs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup: missing system packages: ${need[*]} ${langs[*]} (run as root or install them)" >&2; exit 1; fi
  echo "setup: installing ${need[*]} ${langs[*]}" >&2
  $SUDO apt-get update -qq
  [ ${#need[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  [ ${#langs[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${langs[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci: better-sqlite3 (the judges' response cache) fetches a prebuilt binary, or compiles SQLite from source where it cannot: that step can be silent for several minutes on 2 cores" >&2
  npm ci --no-audit --no-fund
fi
npm run build --silent
chmod +x dist/cli/main.js
