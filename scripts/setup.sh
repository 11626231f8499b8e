#!/usr/bin/env bash
# Installs what the project needs and is missing, quietly when all is there.
#   Debian packages: emscripten (wasm builds), libsimde-dev (native builds of the
#   SIMD source), clang, its sanitizer and libFuzzer runtimes and GoogleTest
#   (native tests and fuzzing), clang-format (npm run lint), chromium-headless-shell (browser tests), firefox-esr (the
#   Firefox smoke test).
#   npm packages: `npm ci` from package-lock.json when node_modules is stale.
# Safe to run any number of times; run as root (or with sudo available) on a
# fresh Debian 12 machine with Node 20.
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(cmake make emscripten libsimde-dev clang clang-format libclang-rt-14-dev libgtest-dev chromium-headless-shell firefox-esr fonts-dejavu-core)
missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages (several minutes the first time): ${missing[*]}…"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: run as root to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages (npm ci, about 2 min the first time)…"
  # --ignore-scripts: no dependency needs its install script here (esbuild's binary comes as an optional
  # dependency), and h5p-standalone's preinstall (`npx only-allow yarn`) would refuse npm.
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
fi
