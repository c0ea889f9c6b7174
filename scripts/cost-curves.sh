#!/usr/bin/env bash
# How a run's cost grows with the world: the standard workload (scenarios/redlock-workload.json,
# Redlock clients looping acquire / read / work / write / release) with more nodes, more
# clients and a longer simulated time, one `redlock-sim run` each. Prints a Markdown table of
# events, CPU time (user + system, steadier than wall time on a shared machine; a short run is
# repeated and its mean taken), events per CPU second and peak memory (/usr/bin/time).
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
for n in [1, 3, 5, 9, 15, 100, 1000]:
    make(f"nodes-{n}", n, 3, 10)
for c in [1, 3, 10, 30, 200]:
    make(f"clients-{c}", 5, c, 10)
for d in [10, 100, 1000]:
    make(f"duration-{d}s", 5, 3, d)
PY
echo "| run | nodes | clients | simulated | events | CPU s | events per CPU s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for name in nodes-1 nodes-3 nodes-5 nodes-9 nodes-15 nodes-100 nodes-1000 clients-1 clients-3 \
  clients-10 clients-30 clients-200 duration-10s duration-100s duration-1000s; do
  file="$work/$name.json"
  # A short run is repeated until the repeats add up to at least a CPU second (at most 200
  # runs), and its CPU time is their mean: one run of a few milliseconds reads as 0.00 s.
  : >"$work/times"
  runs=0
  while :; do
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$build_dir/redlock-sim" run "$file" \
      --json "$work/out.json" >/dev/null || true
    tail -n 1 "$work/time" >>"$work/times"
    runs=$((runs + 1))
    enough=$(awk '{cpu += $1 + $2} END {print (cpu >= 1.0) ? 1 : 0}' "$work/times")
    [ "$enough" = 1 ] || [ "$runs" -ge 200 ] && break
  done
  python3 - "$file" "$work/out.json" "$work/times" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
rows = [line.split()[-3:] for line in open(sys.argv[3]) if line.strip()]
cpu = sum(float(u) + float(v) for u, v, _ in rows) / len(rows)
rss_kb = max(int(m) for _, _, m in rows)
events = r["stats"]["events"]
rate = f"{events / cpu / 1e6:.2f} M" if cpu > 0 else "-"
print(f"| {sys.argv[4]} | {len(s['nodes'])} | {len(s['clients'])} | {s['limits']['duration_ms'] // 1000} s "
      f"| {events} | {cpu:.4f} ({len(rows)} runs) | {rate} | {rss_kb / 1024:.0f} |")
PY
done
