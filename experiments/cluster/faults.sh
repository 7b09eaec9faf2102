#!/usr/bin/env bash
# Network and process faults on a loopback cluster. The run of CONFIG (default faults.toml beside
# this script) is made once embedded, then with WORKERS single-slot worker processes reaching
# the master through `loa-bench proxy` under each fault in turn. Prints a table: the fault,
# what the proxy counted, whether the checkpoints and epochs.jsonl are byte-identical to the
# embedded run's, the wall time, and the slowdown against the same cluster run without faults.
#   experiments/cluster/faults.sh target/release runs/faults [WORKERS]
# FAULT_SECONDS (default 30) is how long a stall, a partition or a SIGSTOP lasts; it begins
# AT seconds (default 5) into the run. LEASE (default 10) is the master's --lease-seconds.
# WORKER_ARGS go to every worker (e.g. "--batch 8"); FAULTS picks the rows (the first is the
# baseline of the slowdowns).
set -euo pipefail
BIN=${1:?usage: faults.sh BINDIR OUT [WORKERS]}
OUT=${2:?usage: faults.sh BINDIR OUT [WORKERS]}
WORKERS=${3:-2}
CONFIG=${CONFIG:-$(dirname "$0")/faults.toml}
FAULT_SECONDS=${FAULT_SECONDS:-30}
AT=${AT:-5}
LEASE=${LEASE:-10}
FAULTS=${FAULTS:-"none latency bandwidth stall partition resets sigstop master-restart"}
rm -rf "$OUT"
mkdir -p "$OUT"

# Sends one command line to the proxy's control port and prints the reply.
control() {
  exec 3<>"/dev/tcp/127.0.0.1/$CONTROL"
  echo "$1" >&3
  read -r reply <&3
  exec 3>&-
  echo "$reply" >> "$RUN.proxy.log"
  case $reply in ok:*) ;; *) echo "faults.sh: the proxy refused '$1': $reply" >&2; exit 1 ;; esac
}

# The digests a run is compared by: every checkpoint and epochs.jsonl.
digests() { (cd "$1" && sha256sum checkpoints/*.ckpt epochs.jsonl); }

start_master() { # $1: run or resume
  local what=(run --config "$CONFIG" --out "$RUN")
  [ "$1" = resume ] && what=(resume "$RUN")
  "$BIN/master" "${what[@]}" --listen "127.0.0.1:$MASTER_PORT" --token faults --lease-seconds "$LEASE" \
    --quiet >> "$RUN.master.log" 2>&1 &
  master=$!
}

wait_master() { while kill -0 "$master" 2>/dev/null; do sleep 0.1; done; wait "$master" || true; }

begin=$(date +%s.%N)
"$BIN/master" run --config "$CONFIG" --out "$OUT/embedded" --threads "$WORKERS" --quiet > "$OUT/embedded.log" 2>&1
embedded_wall=$(echo "$(date +%s.%N) - $begin" | bc)
digests "$OUT/embedded" > "$OUT/embedded.sha256"

printf '%-15s %-40s %-10s %8s %9s\n' fault injected identical wall slowdown
printf '%-15s %-40s %-10s %8.1f %9s\n' "(embedded)" "$WORKERS threads in the master" - "$embedded_wall" -
base_wall=""
for fault in $FAULTS; do
  RUN="$OUT/$fault"
  MASTER_PORT=$((20000 + RANDOM % 10000)); PROXY_PORT=$((30000 + RANDOM % 10000)); CONTROL=$((40000 + RANDOM % 10000))
  begin=$(date +%s.%N)
  start_master run
  "$BIN/loa-bench" proxy --listen "127.0.0.1:$PROXY_PORT" --upstream "127.0.0.1:$MASTER_PORT" \
    --control "127.0.0.1:$CONTROL" > "$RUN.proxy.log" 2>&1 &
  proxy=$!
  until grep -q "^proxy:" "$RUN.proxy.log" 2>/dev/null; do
    kill -0 "$proxy" 2>/dev/null || { cat "$RUN.proxy.log" >&2; exit 1; }
    sleep 0.05
  done
  case $fault in
    latency) control "latency 200 100" ;;
    bandwidth) control "bandwidth 65536" ;;
    resets) control "resets 0.5" ;;
  esac
  workers=()
  for i in $(seq 1 "$WORKERS"); do
    "$BIN/worker" --master "http://127.0.0.1:$PROXY_PORT" --token faults --slots 1 --name "w$i" \
      --give-up-after 300 ${WORKER_ARGS:-} > "$RUN.w$i.log" 2>&1 &
    workers+=($!)
  done
  injected="-"
  case $fault in
    latency) injected="200 ms + 0-100 ms jitter each way" ;;
    bandwidth) injected="64 KiB/s each way per connection" ;;
    resets) injected="resets 0.5/s per connection" ;;
    stall)
      sleep "$AT"; control "stall on"; sleep "$FAULT_SECONDS"; control "stall off"
      injected="all stalled ${FAULT_SECONDS} s" ;;
    partition)
      sleep "$AT"; control "partition $FAULT_SECONDS"; sleep "$FAULT_SECONDS"
      injected="partition ${FAULT_SECONDS} s" ;;
    sigstop)
      # In the background: the other worker may finish the run before w1 wakes up.
      (sleep "$AT"; kill -STOP "${workers[0]}"; sleep "$FAULT_SECONDS"; kill -CONT "${workers[0]}") &
      injected="w1 SIGSTOP ${FAULT_SECONDS} s" ;;
    master-restart)
      # The master is killed a few seconds into a partition and started again (resume) while
      # it holds: the workers find the new master once the partition heals.
      sleep "$AT"; control "partition $FAULT_SECONDS"; sleep 3
      kill -9 "$master"; wait "$master" 2>/dev/null || true
      start_master resume
      sleep "$((FAULT_SECONDS - 3))"
      injected="partition ${FAULT_SECONDS} s, master kill -9 + resume" ;;
  esac
  wait_master
  wall=$(echo "$(date +%s.%N) - $begin" | bc)
  status=$(control status; tail -1 "$RUN.proxy.log")
  counted=$(echo "$status" | sed -n 's/^ok: .*; \([0-9]* connections.*\)$/\1/p' \
    | awk -F', ' '{ print $1 ", " $2 ", " $3 ", " $4 }')
  kill "$proxy" "${workers[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  if digests "$RUN" 2>/dev/null | cmp -s - "$OUT/embedded.sha256"; then identical=yes; else identical=no; fi
  base_wall=${base_wall:-$wall}
  printf '%-15s %-40s %-10s %8.1f %8.2fx\n' "$fault" "$injected" "$identical" "$wall" "$(echo "$wall / $base_wall" | bc -l)"
  echo "  proxy: $counted" 
done
