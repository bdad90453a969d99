#!/usr/bin/env bash
# `make test-slurm`: a sharded sweep through a real Slurm on this machine.
#
# Installs Debian's slurm-wlm and munge when missing, starts a private single-node cluster (its own
# munged socket and key, slurmctld + slurmd on loopback ports, a generated slurm.conf, all state in
# one temporary directory), then:
#   1. writes the job-array + merge scripts of a small 3-shard sweep (`sweep --slurm 3`), submits
#      them as printed, waits for the merge job and compares the merged summary with a local
#      unsharded run (wall-clock columns aside);
#   2. makes array task 1 fail, checks that `merge` names the missing cells and the unfinished
#      shard, resubmits the array (`--resume`: the shards that finished simulate nothing) and the
#      merge, and compares again;
#   3. runs a two-panel experiment file the same way (`experiment --slurm 2`) and compares its
#      figure CSVs and README with a local run.
# Everything it started is stopped on exit, failure or interrupt. KEEP=1 keeps the directory.
#
# Needs root (or sudo) for the packages only; the cluster runs as the current user.
# Environment: BIN (the pwa-replay binary), SLURM_TEST_PORT (slurmctld port; slurmd uses +1).
set -euo pipefail

BIN=${BIN:-target/ci/pwa-replay}
PORT=${SLURM_TEST_PORT:-16817}
WAIT_S=${SLURM_TEST_WAIT:-180}
[ -x "$BIN" ] || { echo "test-slurm: $BIN not built (make build)" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

say() { echo "test-slurm: $*"; }
fail() { echo "test-slurm: FAILED: $*" >&2; exit 1; }

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    return
  fi
  say "installing slurm-wlm and munge"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq slurm-wlm munge >/dev/null
}

W=$(mktemp -d /tmp/pwa-slurm.XXXXXX)
chmod 700 "$W"
mkdir -p "$W"/{state,spool,log,run,work}
export SLURM_CONF=$W/slurm.conf

teardown() {
  local rc=$?
  set +e
  if [ -f "$W/run/slurmctld.pid" ]; then
    scancel --quiet --user="$(id -un)" 2>/dev/null
    sleep 1
  fi
  for d in slurmd slurmctld munged; do
    local f=$W/run/$d.pid
    if [ -f "$f" ]; then
      local pid
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null
    fi
  done
  if [ "$rc" != 0 ]; then
    for l in "$W"/log/*.log "$W"/work/*/slurm/logs/*; do
      [ -f "$l" ] && { echo "--- $l (last lines)"; tail -n 15 "$l"; }
    done
  fi
  if [ "${KEEP:-0}" = 1 ]; then say "kept $W"; else rm -rf "$W"; fi
  exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT TERM

start_cluster() {
  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  mungekey --create --keyfile="$W/munge.key" 2>/dev/null \
    || dd if=/dev/urandom of="$W/munge.key" bs=1024 count=1 2>/dev/null
  chmod 600 "$W/munge.key"
  munged --key-file="$W/munge.key" --socket="$W/run/munge.sock" --pid-file="$W/run/munged.pid" \
    --log-file="$W/log/munged.log" --seed-file="$W/run/munged.seed" --force
  cat >"$SLURM_CONF" <<CONF
ClusterName=pwatest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$W/run/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=root
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/run/slurmctld.pid
SlurmdPidFile=$W/run/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
MinJobAge=600
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=256 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld -f "$SLURM_CONF" -i
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -q idle; then
      say "cluster up: $(sinfo -h -o '%P %D node(s) %t %c CPUs')"
      return
    fi
    sleep 0.5
  done
  fail "the node did not come up idle"
}

# The states of a job's tasks, one per line.
states() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }

# Waits until every task of job $1 has left PENDING/RUNNING; prints their states.
wait_job() {
  local jid=$1 deadline=$((SECONDS + WAIT_S)) s
  while [ $SECONDS -lt $deadline ]; do
    s=$(states "$jid")
    if [ -n "$s" ] && ! grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING' <<<"$s"; then
      sort -u <<<"$s" | paste -sd, -
      return
    fi
    sleep 1
  done
  fail "job $jid still not done after ${WAIT_S}s: $(states "$jid" | paste -sd, -)"
}

# summary.csv without its wall-clock columns (alloc_time_s, sim_wall_s).
deterministic() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) skip[i] = ($i == "alloc_time_s" || $i == "sim_wall_s") }
           { out = ""; for (i = 1; i <= NF; i++) if (!skip[i]) out = out (out == "" ? "" : ",") $i; print out }' "$1"
}

same_summary() {
  deterministic "$1/summary.csv" >"$W/a.csv"
  deterministic "$2/summary.csv" >"$W/b.csv"
  cmp -s "$W/a.csv" "$W/b.csv" || { diff "$W/a.csv" "$W/b.csv" | head; fail "$1 and $2 differ"; }
  say "$1 = $2 ($(($(wc -l <"$W/a.csv") - 1)) rows, wall-clock columns aside)"
}

# Submits the scripts under $1/slurm as `sweep --slurm` (or, with $2 = experiment, `experiment
# --slurm`) printed; sets ARRAY and MERGE.
submit() {
  ARRAY=$(sbatch --parsable "$1/slurm/${2:-sweep}.sbatch" | cut -d';' -f1)
  MERGE=$(sbatch --parsable --dependency=afterok:"$ARRAY" "$1/slurm/merge.sbatch" | cut -d';' -f1)
  say "submitted array $ARRAY and merge $MERGE"
}

install_packages
start_cluster
cd "$W/work"
"$BIN" synth --model uniform --mesh 16x16 --jobs 400 --rate 1 --seed 7 --out trace.swf
SWEEP=(sweep --trace trace.swf --machine mesh:16x16 --sched fcfs,oo,window:10 --alloc ff,mpl
  --loads 0.4,0.8,1.2)
"$BIN" "${SWEEP[@]}" --quiet --out local

say "1. a clean sharded run"
"$BIN" "${SWEEP[@]}" --out run1 --slurm 3 --slurm-opt "--time=10" >submit.txt
grep -q 'sbatch --dependency=afterok' submit.txt || fail "no sbatch commands printed: $(cat submit.txt)"
submit run1
say "array: $(wait_job "$ARRAY"), merge: $(wait_job "$MERGE")"
[ "$(states "$MERGE")" = COMPLETED ] || fail "the merge job did not complete"
same_summary local run1
"$BIN" verify run1 >/dev/null

say "2. a failing task, reported by merge, then resubmitted with --resume"
"$BIN" "${SWEEP[@]}" --out run2 --slurm 3 >/dev/null
mkdir -p run2/parts
echo "blocks shard 1" >run2/parts/shard-1 # a file where task 1's directory goes: it fails
submit run2
say "array: $(wait_job "$ARRAY")"
grep -q FAILED <<<"$(states "$ARRAY")" || fail "task 1 did not fail"
scancel "$MERGE" 2>/dev/null || true # afterok can no longer be met
if "$BIN" merge run2 run2/parts/shard-{0,1,2} 2>merge.err; then fail "merge accepted a missing shard"; fi
grep -q 'cells missing' merge.err && grep -q '1/3' merge.err || fail "merge said: $(cat merge.err)"
say "merge refused: $(head -n 1 merge.err)"
rm run2/parts/shard-1
submit run2
say "array: $(wait_job "$ARRAY"), merge: $(wait_job "$MERGE")"
[ "$(states "$MERGE")" = COMPLETED ] || fail "the merge job did not complete after the rerun"
grep -q '"simulated": 0' run2/parts/shard-0/sweep.json || fail "shard 0 simulated again despite --resume"
same_summary local run2

say "3. an experiment file as a job array"
cat >study.toml <<'TOML'
title = "A Slurm study"
[defaults]
replicate = { count = 2 }
[[panel]]
name = "rate"
workload = "synth:uniform,mesh=16x16,jobs=400,rate={x}"
sched = ["fcfs", "oo"]
alloc = ["ff"]
x = { name = "rate", values = [0.5, 1, 1.5] }
[[panel]]
name = "log"
workload = "trace.swf"
machine = "mesh:16x16"
shake = { submit_s = 10 }
sched = ["fcfs", "window:10"]
alloc = ["mpl"]
x = { values = [0.4, 0.8] }
[[figure]]
name = "rate"
panel = "rate"
y = "mean_turnaround_s"
[[figure]]
name = "log"
panel = "log"
y = "max_wait_s"
TOML
"$BIN" experiment study.toml --quiet --out exp-local
"$BIN" experiment study.toml --out exp --slurm 2 >/dev/null
submit exp experiment
say "array: $(wait_job "$ARRAY"), merge: $(wait_job "$MERGE")"
[ "$(states "$MERGE")" = COMPLETED ] || fail "the experiment's merge job did not complete"
for f in rate.csv log.csv README.md; do
  cmp -s "exp-local/$f" "exp/$f" || { diff "exp-local/$f" "exp/$f" | head; fail "experiment $f differs"; }
done
"$BIN" verify exp >/dev/null
say "experiment: merged = local (rate.csv, log.csv, README.md)"
say "ok"
