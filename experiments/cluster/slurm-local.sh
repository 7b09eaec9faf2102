#!/usr/bin/env bash
# Runs experiments/cluster/slurm.sbatch under a real Slurm on this one machine, and checks that
# the run's checkpoints equal those of the same config run with embedded workers.
#   experiments/cluster/slurm-local.sh [CONFIG] [OUT]
# Installs Debian's slurm-wlm and munge when they are missing (needs root and apt), starts munged,
# slurmctld and slurmd by hand (no systemd here) from a one-node slurm.conf written under OUT,
# submits one job with a master and WORKERS (default 2) worker tasks (the master's step overlaps
# the workers': it mostly waits), waits for it, compares, and stops the daemons it started. Build first: cargo build --release.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${1:-experiments/quick.toml}
OUT=$(realpath -m "${2:-runs/slurm-local}")
WORKERS=${WORKERS:-2}
BIN=$(realpath target/release)
for b in master worker; do
  [ -x "$BIN/$b" ] || { echo "slurm-local: $BIN/$b is missing: run cargo build --release first" >&2; exit 1; }
done

if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  echo "slurm-local: installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge > /dev/null
fi

rm -rf "$OUT"
mkdir -p "$OUT/state" "$OUT/spool" "$OUT/log"
HOST=$(hostname -s)
# One node with every core. No systemd and no cgroups here: processes are tracked through /proc
# (proctrack/linuxproc) and tasks are not bound (task/none).
cat > "$OUT/slurm.conf" << EOF
ClusterName=loa-local
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$OUT/state
SlurmdSpoolDir=$OUT/spool
SlurmctldPidFile=$OUT/slurmctld.pid
SlurmdPidFile=$OUT/slurmd.pid
SlurmctldLogFile=$OUT/log/slurmctld.log
SlurmdLogFile=$OUT/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$HOST CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$OUT/slurm.conf

started=()
munged_pid_file=
stop() {
  for pid in "${started[@]}"; do kill "$pid" 2> /dev/null || true; done
  if [ -n "$munged_pid_file" ] && [ -s "$munged_pid_file" ]; then kill "$(cat "$munged_pid_file")" 2> /dev/null || true; fi
}
trap stop EXIT

# munged runs as its own user; a munged already running (an earlier call) is reused, and left
# running. One started here daemonizes, so it is stopped by the pid file it writes.
if ! pgrep -x munged > /dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
  munged_pid_file=/run/munge/munged.pid
fi
/usr/sbin/slurmctld -D -f "$SLURM_CONF" > "$OUT/log/slurmctld.out" 2>&1 &
started+=($!)
/usr/sbin/slurmd -D -f "$SLURM_CONF" > "$OUT/log/slurmd.out" 2>&1 &
started+=($!)
for _ in $(seq 1 60); do
  sinfo -h -o %T 2> /dev/null | grep -qx idle && break
  sleep 1
done
sinfo -h -o %T | grep -qx idle || { echo "slurm-local: the node never became idle; see $OUT/log" >&2; exit 1; }

# The job: the master plus WORKERS workers on this node (the script's one-node mode). Its run
# time comes from Slurm: sbatch --wait polls at growing intervals, so its own wall time is coarse.
job=$(sbatch --parsable --wait --nodes=1 --ntasks-per-node=$((WORKERS < $(nproc) ? WORKERS : $(nproc))) \
  --time=60 --output="$OUT/job.out" --export=ALL,BIN="$BIN",WORKERS_PER_NODE="$WORKERS" \
  experiments/cluster/slurm.sbatch "$CONFIG" "$OUT/run")
slurm_time=$(scontrol show job "$job" | grep -o 'RunTime=[^ ]*' | cut -d= -f2)

start=$EPOCHREALTIME
"$BIN/master" run --config "$CONFIG" --out "$OUT/embedded" --quiet --threads "$WORKERS"
embedded_wall=$(echo "$EPOCHREALTIME - $start" | bc)

same=yes
for f in "$OUT"/embedded/checkpoints/*; do
  cmp -s "$f" "$OUT/run/checkpoints/$(basename "$f")" || same=no
done
[ "$(ls "$OUT/embedded/checkpoints" | wc -l)" = "$(ls "$OUT/run/checkpoints" | wc -l)" ] || same=no
printf 'slurm %s, job %s, %s workers: run time %s (embedded run: %.1f s); checkpoints identical to the embedded run: %s\n' \
  "$(sinfo -V)" "$job" "$WORKERS" "$slurm_time" "$embedded_wall" "$same"
grep -h "workers\|finished" "$OUT/run/run.log" | tail -3
[ "$same" = yes ]
