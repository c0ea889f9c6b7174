#!/usr/bin/env bash
# The format guard: every C++ file of the project is as clang-format-14 writes it under the
# root's .clang-format (STYLE.md). Names each file that is not and exits 1; exit 2 when
# clang-format-14 is missing (scripts/test.sh installs it). scripts/format.sh rewrites them.
#   format_guard.sh SOURCE_DIR
set -u
root=${1:?usage: format_guard.sh SOURCE_DIR}
command -v clang-format-14 >/dev/null ||
  { echo "format guard: clang-format-14 is not installed (scripts/test.sh installs it)"; exit 2; }
[ -f "$root/.clang-format" ] || { echo "format guard: no $root/.clang-format"; exit 2; }
cd "$root" || exit 2
mapfile -t files < <(find . \( -name '.?*' -o -name 'build*' -o -name 'node_modules' \) -type d -prune \
  -o -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print | sort)
[ ${#files[@]} -gt 0 ] || { echo "format guard: no C++ file under $root"; exit 2; }
# One process for all: each change it would make is a warning "FILE:LINE:COL: warning: ...".
out=$(clang-format-14 --dry-run "${files[@]}" 2>&1)
status=$?
[ $status -eq 0 ] || { echo "format guard: clang-format-14 failed ($status):"; head -5 <<<"$out"; exit 2; }
mapfile -t bad < <(sed -n 's|^\./\(.*\):[0-9]*:[0-9]*: warning: .*|\1|p' <<<"$out" | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted (scripts/format.sh fixes): %s\n' "${bad[@]}"
  exit 1
fi
echo "format guard: ${#files[@]} C++ files formatted"
