#!/usr/bin/env bash
# The format guard names a file clang-format would change, and passes a formatted tree.
set -u
guard=${1:?usage: format_guard_selftest.sh FORMAT_GUARD SOURCE_DIR}
source_dir=${2:?usage: format_guard_selftest.sh FORMAT_GUARD SOURCE_DIR}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp "$source_dir/.clang-format" "$tree/"
mkdir -p "$tree/sim" "$tree/build/sim"
printf 'int f(int a) {\n  return a + 1;\n}\n' >"$tree/sim/good.cpp"
# Out of a build folder's C++ files nothing is read.
printf 'int   g( ) {return 2;}\n' >"$tree/build/sim/generated.cpp"
out=$(bash "$guard" "$tree")
status=$?
[ "$status" -eq 0 ] || { echo "format guard failed a formatted tree ($status): $out"; exit 1; }
printf 'int   g( ) {return 2;}\n' >"$tree/sim/bad.hpp"
out=$(bash "$guard" "$tree")
status=$?
[ "$status" -eq 1 ] || { echo "format guard exited $status on an unformatted file, expected 1"; exit 1; }
grep -q "sim/bad.hpp" <<<"$out" || { echo "format guard did not name sim/bad.hpp: $out"; exit 1; }
if grep -q "good.cpp\|generated.cpp" <<<"$out"; then echo "format guard named too much: $out"; exit 1; fi
echo "format guard self-test: names an unformatted file, passes formatted ones"
