#!/usr/bin/env bash
# How a run's cost grows with the world: the standard workload (scenarios/redlock-workload.json,
# Redlock clients looping acquire / read / work / write / release) with more nodes, more
# clients and a longer simulated time, one `redlock-sim run` each. Prints a Markdown table of
# events, CPU time (user + system, steadier than wall time on a shared machine; a short run is
# timed as a loop of runs and divided), the part of it spent before the first event (the same
# world run for 1 ms: start-up, parse, world construction), events per CPU second over the whole
# run and over the part after the first event, and peak memory (/usr/bin/time).
# docs/perf.md quotes it with the date it was taken.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$repo_root/scripts/build.sh" >/dev/null
[ -x /usr/bin/time ] || as_root apt-get install -y -qq time >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$repo_root/scenarios/redlock-workload.json" "$work" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
def make(name, nodes, clients, duration_s):
    s = json.loads(json.dumps(base))
    s["name"] = name
    s["nodes"] = [{"name": f"N{i}"} for i in range(1, nodes + 1)]
    template = base["clients"][0]
    s["clients"] = []
    for c in range(clients):
        client = json.loads(json.dumps(template))
        client["name"] = f"C{c + 1}"
        client["nodes"] = [f"N{i}" for i in range(1, nodes + 1)]
        s["clients"].append(client)
    s.setdefault("limits", {})["duration_ms"] = duration_s * 1000
    s.pop("expect", None)
    json.dump(s, open(f"{sys.argv[2]}/{name}.json", "w"))
    # The same world run for 1 ms: what a run costs before its events (the process's start-up,
    # the scenario's parse, the world's construction: a Lua state per node).
    s["limits"]["duration_ms"] = 1
    json.dump(s, open(f"{sys.argv[2]}/{name}-start.json", "w"))
for n in [1, 3, 5, 9, 15, 100, 1000]:
    make(f"nodes-{n}", n, 3, 10)
for c in [1, 3, 10, 30, 200]:
    make(f"clients-{c}", 5, c, 10)
for d in [10, 100, 1000]:
    make(f"duration-{d}s", 5, 3, d)
PY
# /usr/bin/time prints CPU seconds with two decimals, so a run of a few milliseconds reads as
# 0.00 or 0.01: a short run is timed as a loop of n runs (n chosen so the loop takes about a
# CPU second, at most 400) and its CPU time is the loop's over n.
timed_loop() {  # timed_loop RUNS FILE
  /usr/bin/time -f "%U %S %M" -o "$work/time" bash -c \
    'for ((i = 0; i < $0; i++)); do "$1" run "$2" --json "$3" >/dev/null || true; done' \
    "$1" "$build_dir/redlock-sim" "$2" "$work/out.json"
  echo "$1 $(tail -n 1 "$work/time")" >"$work/times"
}
# cpu_per_run FILE: a run's CPU seconds (and its peak RSS in KB, and the runs timed) in $work/times.
cpu_per_run() {
  timed_loop 1 "$1"
  local runs
  runs=$(awk '{cpu = $2 + $3; n = (cpu >= 0.5) ? 1 : int(1.0 / ((cpu > 0.005) ? cpu : 0.005)) + 1;
               print (n > 400) ? 400 : n}' "$work/times")
  if [ "$runs" -gt 1 ]; then timed_loop "$runs" "$1"; fi
}
echo "| run | nodes | clients | simulated | events | CPU s a run (runs timed) | of it before the first event | events per CPU s | events per CPU s after the first event | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for name in nodes-1 nodes-3 nodes-5 nodes-9 nodes-15 nodes-100 nodes-1000 clients-1 clients-3 \
  clients-10 clients-30 clients-200 duration-10s duration-100s duration-1000s; do
  cpu_per_run "$work/$name-start.json"
  mv "$work/times" "$work/start-times"
  cpu_per_run "$work/$name.json"
  python3 - "$work/$name.json" "$work/out.json" "$work/times" "$work/start-times" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
def per_run(path):
    runs, user, system, rss_kb = open(path).read().split()[-4:]
    return int(runs), (float(user) + float(system)) / int(runs), int(rss_kb)
runs, cpu, rss_kb = per_run(sys.argv[3])
_, start, _ = per_run(sys.argv[4])
events = r["stats"]["events"]
rate = f"{events / cpu / 1e6:.2f} M" if cpu > 0 else "-"
beyond = f"{events / (cpu - start) / 1e6:.2f} M" if cpu > start else "-"
print(f"| {sys.argv[5]} | {len(s['nodes'])} | {len(s['clients'])} | {s['limits']['duration_ms'] // 1000} s "
      f"| {events} | {cpu:.4f} ({runs}) | {start:.4f} | {rate} | {beyond} | {rss_kb / 1024:.0f} |")
PY
done
