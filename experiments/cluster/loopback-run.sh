#!/usr/bin/env bash
# A cluster run on one machine (an end-to-end measure of the master's cost): a master and WORKERS single-slot
# worker processes on loopback, CONFIG's settings (default experiments/thesis.toml) cut to EPOCHS
# epochs. Prints the master's CPU time (user + sys), the bytes it wrote (sockets and files,
# /proc/PID/io wchar) and the wall time; the run's log ends with the cluster summary (networks
# sent each way, the tasks' bytes). Extra arguments go to every worker, e.g.
#   experiments/cluster/loopback-run.sh target/release runs/lo 4 2 --peer-listen 127.0.0.1:0
# Compare builds by running it with each BINDIR in turn (the checkpoints must be the same).
set -euo pipefail
BIN=${1:?usage: loopback-run.sh BINDIR OUT WORKERS EPOCHS [worker flags...]}
OUT=${2:?usage: loopback-run.sh BINDIR OUT WORKERS EPOCHS [worker flags...]}
WORKERS=${3:?usage: loopback-run.sh BINDIR OUT WORKERS EPOCHS [worker flags...]}
EPOCHS=${4:?usage: loopback-run.sh BINDIR OUT WORKERS EPOCHS [worker flags...]}
shift 4
CONFIG=${CONFIG:-$(dirname "$0")/../thesis.toml}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
sed "s/^epochs = .*/epochs = $EPOCHS/" "$CONFIG" > "$OUT.toml"
start=$(date +%s.%N)
"$BIN/master" run --config "$OUT.toml" --out "$OUT" --listen "127.0.0.1:$PORT" --token loopback --quiet \
  > "$OUT.master.log" 2>&1 &
master=$!
for i in $(seq 1 "$WORKERS"); do
  "$BIN/worker" --master "http://127.0.0.1:$PORT" --token loopback --slots 1 --name "w$i" --give-up-after 3 "$@" \
    > "$OUT.w$i.log" 2>&1 &
done
# The master's counters, read until it exits (its /proc entry goes with it).
io=""; stat=""
while kill -0 "$master" 2>/dev/null; do
  io=$(cat "/proc/$master/io" 2>/dev/null || echo "$io")
  stat=$(cat "/proc/$master/stat" 2>/dev/null || echo "$stat")
  sleep 0.1
done
wait "$master"
end=$(date +%s.%N)
wait
ticks=$(getconf CLK_TCK)
awk -v stat="$stat" -v io="$io" -v ticks="$ticks" -v wall="$(echo "$end - $start" | bc)" 'BEGIN {
  split(stat, s, " "); n = split(io, lines, "\n");
  for (i = 1; i <= n; i++) if (lines[i] ~ /^wchar/) { split(lines[i], w, " "); wchar = w[2] }
  printf "master CPU %.2f s (user + sys), wrote %.1f MiB, wall %.1f s\n", (s[14] + s[15]) / ticks, wchar / 1048576, wall
}'
grep -h "cluster:" "$OUT/run.log" | sed 's/^.*cluster:/cluster:/'
