#!/usr/bin/env bash
# Installs this driver's library into .venv, pinned with hashes by requirements.txt.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../python-common/install-venv.sh" "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
