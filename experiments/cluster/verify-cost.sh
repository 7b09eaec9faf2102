#!/usr/bin/env bash
# What verification by replay costs: the run of CONFIG (default verify-cost.toml beside this
# script) on a loopback cluster of two single-slot workers, once per --verify rate in RATES
# (default "0 0.03 0 0.03"), ROUNDS times. Prints, per run, the CPU seconds of the master and both
# workers together (user + system, from bash's `times` after they are reaped), the wall time,
# the outcomes accepted from workers and those verified, and whether the checkpoints equal the first run's.
#   experiments/cluster/verify-cost.sh target/release runs/verify-cost
set -euo pipefail
BIN=${1:?usage: verify-cost.sh BINDIR OUT}
OUT=${2:?usage: verify-cost.sh BINDIR OUT}
CONFIG=${CONFIG:-$(dirname "$0")/verify-cost.toml}
RATES=${RATES:-"0 0.03 0 0.03"}
rm -rf "$OUT"
mkdir -p "$OUT"
digests() { (cd "$1" && sha256sum checkpoints/*.ckpt epochs.jsonl); }

printf '%-4s %-7s %10s %9s %9s %9s %10s\n' run verify cpu_s wall_s tasks verified identical
i=0
for rate in $RATES; do
  i=$((i + 1))
  RUN="$OUT/$i-verify-$rate"
  PORT=$((20000 + RANDOM % 20000))
  # One subshell per run, so its `times` counts exactly this run's three processes.
  read -r cpu wall < <(
    begin=$(date +%s.%N)
    "$BIN/master" run --config "$CONFIG" --out "$RUN" --listen "127.0.0.1:$PORT" --token cost \
      --verify "$rate" --quiet > "$RUN.master.log" 2>&1 &
    master=$!
    workers=()
    for w in 1 2; do
      "$BIN/worker" --master "http://127.0.0.1:$PORT" --token cost --slots 1 --name "w$w" \
        > "$RUN.w$w.log" 2>&1 &
      workers+=($!)
    done
    wait "$master"
    # Workers outlive a finished run (they wait for the next master on the address): stop them
    # as Ctrl-C would, and reap them so that their CPU time is counted.
    kill -INT "${workers[@]}" 2>/dev/null || true
    wait
    wall=$(echo "$(date +%s.%N) - $begin" | bc)
    # `times` prints the shell's own, then its children's user and system time.
    # (Not in a command substitution: that would be a subshell with no children of its own.)
    times > "$RUN.times"
    children=$(tail -n 1 "$RUN.times")
    user=${children% *} sys=${children#* }
    to_s() { local m=${1%%m*} s=${1#*m}; echo "$m * 60 + ${s%s}" | bc; }
    echo "$(echo "$(to_s "$user") + $(to_s "$sys")" | bc) $wall"
  )
  summary=$(grep 'cluster: ' "$RUN/run.log" | tail -1)
  tasks=$(grep -o '[0-9]* outcomes accepted' <<< "$summary" | grep -o '^[0-9]*')
  verified=$(grep -o 'verification: [0-9]* verified' <<< "$summary" | grep -o '[0-9]*')
  digests "$RUN" > "$RUN.sha256"
  same=yes
  cmp -s "$RUN.sha256" "$OUT/1.sha256" 2>/dev/null || same=no
  [ "$i" -eq 1 ] && cp "$RUN.sha256" "$OUT/1.sha256" && same=-
  printf '%-4s %-7s %10.2f %9.1f %9s %9s %10s\n' "$i" "$rate" "$cpu" "$wall" "$tasks" "$verified" "$same"
done
