#!/usr/bin/env bash
# One scenario file as a test: `redlock-sim run` must exit 0 (every expectation in the file met).
# On failure the CLI's own story explains what differed.
set -u
cli=${1:?usage: run_scenario.sh CLI FILE}
file=${2:?usage: run_scenario.sh CLI FILE}
"$cli" run "$file"
