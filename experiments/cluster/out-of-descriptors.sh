#!/usr/bin/env bash
# A master out of file descriptors (docs/cluster.md, thousands of workers): starts
# MASTER's `run --threads 0` under a 64-file limit (soft and hard, so it cannot raise it), opens
# 120 connections to it, more than it can accept, and prints the CPU it used over SECONDS
# (default 3) while they wait. A master that retries `accept` at once uses a whole core.
#   experiments/cluster/out-of-descriptors.sh target/release/master [SECONDS]
set -euo pipefail
MASTER=${1:?usage: out-of-descriptors.sh MASTER-BINARY [SECONDS]}
WAIT=${2:-3}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
printf 'population = 4\n' > "$dir/c.toml"
port=$((30000 + RANDOM % 20000))
(ulimit -n 64; exec "$MASTER" run --config "$dir/c.toml" --out "$dir/run" --listen "127.0.0.1:$port" \
  --threads 0 --quiet) > /dev/null 2> "$dir/stderr" &
pid=$!
for _ in $(seq 1 200); do
  (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
  sleep 0.05
done
for _ in $(seq 1 120); do
  exec {fd}<> "/dev/tcp/127.0.0.1/$port"
done
sleep 0.5
ticks=$(getconf CLK_TCK)
cpu() { awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$pid/stat"; }
before=$(cpu)
sleep "$WAIT"
after=$(cpu)
echo "$MASTER: master CPU $(echo "$after - $before" | bc) s in $WAIT s, 120 connections over a 64-file limit"
head -c 300 "$dir/stderr"
