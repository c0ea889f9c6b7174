#!/usr/bin/env bash
# Installs what the real-library drivers need: each drivers/<name>/install.sh installs its
# toolchain if missing (Debian packages) and its library, pinned by the folder's lock file
# (npm ci, pip install --require-hashes, go mod download, mvn dependency:go-offline). Safe to run
# twice; offline after the first run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
shopt -s nullglob
for installer in "$repo_root"/drivers/*/install.sh; do
  driver=$(basename "$(dirname "$installer")")
  echo "== driver $driver"
  (cd "$(dirname "$installer")" && bash ./install.sh)
done
