#!/bin/sh
# Running vsc under existing engines: GNU parallel, and a Slurm job array on
# a single-node Slurm this test starts itself (munged, slurmctld, slurmd in a
# private folder, on ports of their own). Both must give the same numbers as
# one `vsc check --summary` run.
set -u
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
require=${VSC_REQUIRE_ALL:-0}
fail=0
bad() { echo "FAIL: distribute: $*"; fail=$((fail + 1)); }
skip() {
  if [ "$require" = 1 ]; then bad "$* (and VSC_REQUIRE_ALL=1)"; else echo "skip: distribute: $*"; fi
}

tmp=$(mktemp -d)
pids=""
cleanup() {
  # the daemons, their pid files, and any job step left behind
  [ -f "$tmp/slurm/munge/pid" ] && pids="$pids $(cat "$tmp/slurm/munge/pid")"
  for p in $(pgrep -x slurmstepd); do
    grep -qa "$tmp/slurm" "/proc/$p/environ" 2>/dev/null && pids="$pids $p"
  done
  for p in $pids; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# 12 lab-style files of 25 segments (store buffering; every 5th shows the
# TSO outcome) and one consistent file without segments.
for f in $(seq 1 12); do
  {
    echo "init x 0"; echo "init y 0"
    for i in $(seq 0 24); do
      echo "segment f$f.i$i"
      if [ $((i % 5)) -eq 2 ]; then rx=0; else rx=1; fi
      printf 'T1 w x 1\nT1 r y 0\nT2 w y 1\nT2 r x %s\n' "$rx"
    done
  } > "$tmp/run$f.vsc"
done
cp "$top/tests/cli/message_passing.vsc" "$tmp/mp.vsc"
"$vsc" check --summary --json --min "$tmp"/*.vsc > "$tmp/expected.json"

normalise() { python3 -c '
import json, sys
s = json.load(sys.stdin); s.pop("time_s")
for k in ("inconsistent", "unknown"):
    s[k].sort(key=lambda e: (e["file"], e["segment"] or ""))
for o in s.get("outcomes", []):
    o["executions"].sort(key=lambda e: (e["file"], e["segment"] or ""))
print(json.dumps(s, sort_keys=True))'; }

# ---- GNU parallel: one vsc per file, results as JSON lines ----------------
if command -v parallel > /dev/null; then
  parallel --will-cite -j 2 "$vsc" check --json --min {} ::: "$tmp"/*.vsc > "$tmp/par.jsonl"
  status=$?
  [ "$status" -ge 1 ] || bad "parallel: expected some inconsistent files (status $status)"
  python3 - "$tmp/par.jsonl" "$tmp/expected.json" <<'PY' || bad "parallel results differ"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
exp = json.loads(open(sys.argv[2]).read())
segs = sum(o.get("segments_total", 1) for o in lines)
inc = sum(o.get("segments_inconsistent", 1 if o["verdict"] == "inconsistent" else 0) for o in lines)
assert len(lines) == exp["files"] and segs == exp["segments_total"], (len(lines), segs)
assert inc == exp["segments_inconsistent"], inc
PY
else
  skip "GNU parallel not installed (package parallel)"
fi

# ---- Slurm: a job array on a private single-node cluster -------------------
start_slurm() {
  for c in munged slurmctld slurmd sbatch sinfo; do
    command -v $c > /dev/null || PATH=$PATH:/usr/sbin
    command -v $c > /dev/null || { skip "$c not installed (packages munge slurmctld slurmd slurm-client)"; return 1; }
  done
  [ "$(id -u)" = 0 ] || { skip "Slurm daemons need root here"; return 1; }
  s=$tmp/slurm
  mkdir -p "$s/state" "$s/spool" "$s/munge"
  head -c 1024 /dev/urandom > "$s/munge/key"
  chmod 400 "$s/munge/key"
  # A private munged as root (--force): running it as the munge user failed
  # now and then in CI with "Failed to open /dev/null: Permission denied".
  munged --force --key-file="$s/munge/key" --socket="$s/munge/socket" \
    --pid-file="$s/munge/pid" --log-file="$s/munge/log" --seed-file="$s/munge/seed" \
    || { bad "munged did not start: $(tail -2 "$s/munge/log" 2>&1)"; return 1; }
  host=$(hostname -s)
  port=$((20000 + $$ % 20000))
  cat > "$s/slurm.conf" <<CONF
ClusterName=vsctest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$s/munge/socket
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=vsc Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$s/slurm.conf
  slurmctld -D > "$s/ctld.out" 2>&1 &
  pids="$pids $!"
  slurmd -D > "$s/d.out" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 1 60); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && return 0
    sleep 0.5
  done
  bad "the test's Slurm did not come up: $(tail -n 3 "$s/slurmctld.log" "$s/slurmd.log" 2>&1)"
  return 1
}

if start_slurm; then
  "$top/scripts/vsc-slurm" -n 4 -o "$tmp/out" --json --vsc "$vsc" -x --min "$tmp"/*.vsc \
    2> "$tmp/slurm.err" | normalise > "$tmp/slurm.json"
  normalise < "$tmp/expected.json" > "$tmp/expected.norm"
  if ! cmp -s "$tmp/slurm.json" "$tmp/expected.norm"; then
    bad "Slurm job array summary differs: $(cat "$tmp/slurm.err")"
    diff "$tmp/expected.norm" "$tmp/slurm.json" | head -5
  fi
  [ "$(ls "$tmp/out"/summary-*.json | wc -l)" -eq 4 ] || bad "expected 4 array tasks"
fi

[ $fail -eq 0 ] && echo "distribute: ok"
[ $fail -eq 0 ]
