# Shared by the scripts: installs what the project needs from Debian, idempotently.
# Sourced, not run.

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${REDLOCK_BUILD_DIR:-$repo_root/build}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Debian packages the libraries and the redlock-sim executable need (all the demo needs).
demo_packages=(
  build-essential cmake pkg-config git
  libboost-program-options-dev
  nlohmann-json3-dev liblua5.1-0-dev lua-cjson lua-bitop libhiredis-dev
  libjemalloc-dev libcpp-httplib-dev
)
# And what the tests and benchmarks add: test frameworks, real redis-servers, chromium for the
# browser tests, clang for the fuzz build, clang-format for the format guard, gdb for
# scenario.explore_threads.
test_packages=(
  librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev
  redis-server redis-tools procps gdb
  parallel
  chromium
  clang-14 libclang-rt-14-dev
  clang-format-14
)
required_packages=("${demo_packages[@]}" "${test_packages[@]}")

# Installs `required_packages` (or, with REDLOCK_DEMO_ONLY=1, `demo_packages`) and any extra
# packages named.
install_dependencies() {
  local missing=()
  local wanted=("${required_packages[@]}")
  [ "${REDLOCK_DEMO_ONLY:-0}" = 1 ] && wanted=("${demo_packages[@]}")
  for package in "${wanted[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "== installing: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# The browser test drives Debian's chromium through playwright-core (from npm, pinned by
# tests/browser/package-lock.json; it never downloads a browser). Installs node and npm only when
# the machine has none, and runs npm ci only when the module is missing.
install_browser_test_dependencies() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      nodejs npm >/dev/null
  fi
  if [ ! -d "$repo_root/tests/browser/node_modules/playwright-core" ]; then
    echo "== installing playwright-core (npm ci in tests/browser)"
    (cd "$repo_root/tests/browser" &&
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
  fi
}

# The Kubernetes manifests' schema check runs kubernetes-models from npm (pinned by
# tests/deploy/package-lock.json; node and npm as for the browser test).
install_deploy_check_dependencies() {
  if [ ! -d "$repo_root/tests/deploy/node_modules/kubernetes-models" ]; then
    echo "== installing kubernetes-models (npm ci in tests/deploy)"
    (cd "$repo_root/tests/deploy" && npm ci --no-audit --no-fund --silent)
  fi
}

# Everything for developers; with REDLOCK_DEMO_ONLY=1 the executable alone (no tests,
# benchmarks or browser tests, so none of their frameworks are needed).
configure_and_build() {
  if [ "${REDLOCK_DEMO_ONLY:-0}" = 1 ]; then
    cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DREDLOCK_TESTS=OFF \
      -DREDLOCK_BENCHMARKS=OFF -DREDLOCK_BROWSER_TESTS=OFF >/dev/null
    cmake --build "$build_dir" -j "$(nproc)" --target redlock-sim
  else
    cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DREDLOCK_TESTS=ON \
      -DREDLOCK_BENCHMARKS=ON -DREDLOCK_BROWSER_TESTS=ON >/dev/null
    cmake --build "$build_dir" -j "$(nproc)"
  fi
}
