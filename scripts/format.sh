#!/usr/bin/env bash
# Formats every C++ file of the project with clang-format-14 (the root's .clang-format), in
# place; installs clang-format-14 first when missing. --check only lists the files it would
# change (exit 1 if any): the test `unit.format_guard` runs that check.
#   scripts/format.sh [--check]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies clang-format-14
case "${1:-}" in
  --check) exec bash "$repo_root/tests/guard/format_guard.sh" "$repo_root" ;;
  "") ;;
  *) echo "format.sh: unknown argument $1 (usage: scripts/format.sh [--check])"; exit 2 ;;
esac
cd "$repo_root"
find . \( -name '.?*' -o -name 'build*' -o -name 'node_modules' \) -type d -prune -o -type f \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0 | xargs -0 clang-format-14 -i
echo "formatted: $(git status --short -- '*.cpp' '*.hpp' '*.h' | wc -l) file(s) changed"
