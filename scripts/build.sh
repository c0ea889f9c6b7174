#!/usr/bin/env bash
# Installs the Debian dependencies (once), then configures and builds into build/ (optimised,
# assertions on). The CLI ends up at build/redlock-sim.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
configure_and_build
echo "== built $build_dir/redlock-sim"
