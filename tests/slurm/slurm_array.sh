#!/usr/bin/env bash
# The Slurm recipe for real: a one-node Slurm cluster from Debian's slurm-wlm and munge (munged,
# slurmctld and slurmd on this machine, no cgroups, state, spool and logs in a temporary folder,
# ports chosen free), scripts/slurm/explore-array.sh submits a 3-task array of a small explore
# and the dependent merge job, and the merge is byte-identical to the one-machine run.
# Everything runs in private network and PID namespaces: the daemons listen on the namespace's
# loopback only, and the kernel stops every one of them when the test ends, however it ends.
set -u
cli=${1:?usage: slurm_array.sh CLI SOURCE_DIR WORK_DIR}
source_dir=$(cd "${2:?}" && pwd)
work=${3:?}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
if [ -z "${REDLOCK_SLURM_NAMESPACE:-}" ]; then
  # shellcheck source=../../scripts/common.sh
  source "$source_dir/scripts/common.sh"
  install_dependencies slurm-wlm munge iproute2 util-linux || { echo "FAIL: cannot install slurm-wlm and munge"; exit 1; }
  rm -rf "$work" && mkdir -p "$work"
  exec unshare --net --pid --fork --kill-child --mount-proc \
    env REDLOCK_SLURM_NAMESPACE=1 bash "$0" "$@"
fi
fail() { echo "FAIL: $*"; exit 1; }
ip link set lo up || fail "cannot bring up the namespace's loopback"
# Slurm binds with getaddrinfo(AI_ADDRCONFIG), which finds no IPv4 address when 127.0.0.1 is the
# only one: a second loopback address satisfies it (glibc counts any IPv4 address but
# 127.0.0.1), and the namespace still has no interface but lo.
ip addr add 127.0.0.2/8 dev lo || fail "cannot add 127.0.0.2 to the namespace's loopback"
cluster=$(cd "$work" && pwd)/cluster
mkdir -p "$cluster/munge" "$cluster/state" "$cluster/spool" && chmod 700 "$cluster/munge"
stop_all() {
  for pid_file in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid"; do
    [ -s "$pid_file" ] && kill "$(cat "$pid_file")" 2> /dev/null
  done
}
trap stop_all EXIT
show_logs() {
  for log in "$cluster"/slurmctld.log "$cluster"/slurmd.log "$cluster"/munge/munged.log; do
    echo "== $log"
    tail -n 20 "$log" 2> /dev/null
  done
}
# munged with its own key and socket.
head -c 1024 /dev/urandom > "$cluster/munge/munge.key" && chmod 400 "$cluster/munge/munge.key"
munged --force --socket="$cluster/munge/munge.socket" --key-file="$cluster/munge/munge.key" \
  --pid-file="$cluster/munge/munged.pid" --log-file="$cluster/munge/munged.log" \
  --seed-file="$cluster/munge/munged.seed" || fail "munged did not start"
# Two ports that nothing listens on (the namespace is new, so any is free; checked all the same),
# away from Slurm's defaults 6817-6818.
port_free() { ! ss -Hltn "sport = :$1" | grep -q .; }
controller_port=$((20000 + RANDOM % 20000))
node_port=$((controller_port + 1))
port_free "$controller_port" && port_free "$node_port" || fail "ports $controller_port-$node_port in use"
host=$(hostname -s)
cat > "$cluster/slurm.conf" <<CONF
ClusterName=redlocksim
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$controller_port
SlurmdPort=$node_port
AuthType=auth/munge
AuthInfo=socket=$cluster/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
NodeName=redlocknode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=redlocknode Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$cluster/slurm.conf
slurmctld -c -i || { show_logs; fail "slurmctld did not start"; }
slurmd -N redlocknode || { show_logs; fail "slurmd did not start"; }
node_idle() { timeout 10 sinfo -h -o %t 2> /dev/null | grep -q '^idle'; }
for _ in $(seq 60); do
  node_idle && break
  kill -0 "$(cat "$cluster/slurmctld.pid" 2> /dev/null)" 2> /dev/null || break
  sleep 1
done
node_idle || { show_logs; fail "the node did not come up idle"; }
echo "slurm up: slurmctld on 127.0.0.1:$controller_port, slurmd on :$node_port"

results=$work/results
args=("$source_dir/scenarios/redlock-workload.json" --seeds 30 --checkers rs,mx
  --shrink-max 1 --shrink-runs 60)
cd "$work" || exit 1
"$cli" explore "${args[@]}" --quiet --out "$results/merged" > one.log 2>&1
one_status=$?
[ "$one_status" -eq 1 ] || { cat one.log; fail "the unsharded explore exited $one_status, not 1"; }
mv "$results/merged" one
timeout 600 "$source_dir/scripts/slurm/explore-array.sh" --shards 3 --results "$results" \
  --cli "$cli" --wait -- "${args[@]}" > submit.log 2>&1
status=$?
cat submit.log
for log in "$results"/logs/*.out; do echo "== $log"; cat "$log"; done
[ "$status" -eq "$one_status" ] || { show_logs; fail "the merge job exited $status, not $one_status"; }
[ "$(ls -d "$results"/shard-* | wc -l)" -eq 3 ] || fail "not 3 shards"
diff -r one "$results/merged" || fail "the Slurm merge differs from the one-machine run"
echo "PASS: a 3-task Slurm array and its merge job gave the one-machine bytes"
