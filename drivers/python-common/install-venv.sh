#!/usr/bin/env bash
# Installs one Python driver's library into DRIVER_FOLDER/.venv (a virtual environment inside
# the driver folder), pinned with hashes by its requirements.txt. Idempotent: a no-op when .venv
# already holds exactly requirements.txt; offline after the first run (pip's cache).
set -euo pipefail
cd "${1:?usage: install-venv.sh DRIVER_FOLDER}"
name=$(basename "$PWD")
stamp=.venv/installed-requirements.txt
if [ -x .venv/bin/python ] && cmp -s requirements.txt "$stamp"; then
  echo "driver $name: already installed"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "driver $name: python3 is missing: install the Debian package python3 (apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "driver $name: python3's venv module is missing: install the Debian package python3-venv (apt-get install python3-venv)" >&2
  exit 1
fi
rm -rf .venv
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.txt
cp requirements.txt "$stamp"
echo "driver $name: installed $(.venv/bin/python -m pip freeze --disable-pip-version-check | tr "\n" " ")"
