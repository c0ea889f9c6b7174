#!/usr/bin/env bash
# The package end to end, as a library author uses it: `cmake --install` into a temporary prefix
# (the static libraries already built), examples/my-lock configured with find_package(redlock_sim)
# only, built, its GoogleTest run, and its program must find my-redlock's bug, shrink it and print
# a reproduce line that, run as printed, reproduces the violation.
set -u
build_dir=${1:?usage: example_test.sh BUILD_DIR SOURCE_DIR WORK_DIR}
source_dir=${2:?}
work=${3:?}
rm -rf "$work"
mkdir -p "$work"
fail() { echo "example test: $*"; exit 1; }
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install failed"; }
# The installed CLI's `serve` runs the playground server installed beside it.
[ -x "$work/prefix/bin/redlock-sim-serve" ] || fail "redlock-sim-serve is not installed beside redlock-sim"
"$work/prefix/bin/redlock-sim" serve --port 70000 > "$work/serve.log" 2>&1
[ $? = 2 ] && grep -qF -- "--port must be in [0, 65535]" "$work/serve.log" ||
  { cat "$work/serve.log"; fail "the installed redlock-sim serve does not reach its server"; }
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$source_dir/examples/my-lock" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "the example does not configure against the package"; }
cmake --build "$work/build" -j 2 > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "the example does not build against the package"; }
# 300 RapidCheck cases: a case finds my-redlock's bug about one time in 15 (measured over 12
# runs), so the property's failure is all but certain.
RC_PARAMS=max_success=300 "$work/build/my_lock_test" > "$work/test.log" 2>&1 ||
  { cat "$work/test.log"; fail "the example's GoogleTest fails"; }
cat "$work/test.log"
# The RapidCheck property's failure: its reproduce line, run as printed, shows the violation.
property_reproduce=$(sed -n 's/^reproduce: //p' "$work/test.log" | head -n 1)
[ -n "$property_reproduce" ] || fail "the RapidCheck property printed no reproduce line"
$property_reproduce > "$work/property-reproduce.log" 2>&1 ||
  { cat "$work/property-reproduce.log"; fail "the property's reproduce line does not reproduce"; }
grep -q 'mutual exclusion  VIOLATED' "$work/property-reproduce.log" ||
  fail "the property's replay shows no violation"
cd "$work/build" || exit 1
./my-lock-check "$work/findings" > "$work/check.log" 2>&1 ||
  { cat "$work/check.log"; fail "my-lock-check failed"; }
cat "$work/check.log"
grep -q '^mutual_exclusion | my-redlock | client-pause$' "$work/check.log" ||
  fail "the finding is not my-redlock's mutual exclusion under client pauses"
reproduce=$(sed -n 's/^reproduce: //p' "$work/check.log")
[ -n "$reproduce" ] || fail "no reproduce line"
# As printed: the shrunk counterexample's expectation (the violation) must be met.
$reproduce > "$work/reproduce.log" 2>&1 ||
  { cat "$work/reproduce.log"; fail "the reproduce line does not reproduce the violation"; }
grep -q 'mutual exclusion  VIOLATED' "$work/reproduce.log" || fail "the replay shows no violation"
grep -q '^  client-pause ' "$work/check.log" || fail "no matrix row"
echo "example test: passed"
