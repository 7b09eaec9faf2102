#!/usr/bin/env bash
# A loa-evolve run over plain ssh: the master here, one worker per host in a host list (one host
# per line; `#` comments). The repository must be built at the same path on every host (or set
# BIN to where `worker` lives there).
#   experiments/cluster/ssh.sh hosts.txt experiments/quick.toml runs/quick-cluster
# Ctrl-C stops the master after the work in hand; the workers then give up and exit.
set -euo pipefail
HOSTS=${1:?usage: ssh.sh HOSTS CONFIG OUT}
CONFIG=${2:?usage: ssh.sh HOSTS CONFIG OUT}
OUT=${3:?usage: ssh.sh HOSTS CONFIG OUT}
PORT=${PORT:-50051}
BIN=${BIN:-$PWD/target/release}
MASTER_HOST=${MASTER_HOST:-$(hostname -f)}
export LOA_TOKEN=${LOA_TOKEN:-$(head -c 24 /dev/urandom | base64 | tr -d '/+=')}
# Workers serve the chromosomes they hold to each other on PEER_PORT (PEERS=0: not at all), so
# new networks travel as their origins and their parents come from peers, not the master.
PEER_FLAGS=""
if [ "${PEERS:-1}" != 0 ]; then
  PEER_FLAGS="--peer-listen 0.0.0.0:${PEER_PORT:-50052}"
fi

pids=()
while read -r host _; do
  case "$host" in ''|'#'*) continue ;; esac
  # The token goes through stdin, not the command line, so `ps` on the host does not show it.
  echo "$LOA_TOKEN" | ssh -o BatchMode=yes "$host" \
    "read -r LOA_TOKEN; export LOA_TOKEN; exec '$BIN/worker' --master 'http://$MASTER_HOST:$PORT' --give-up-after 60 $PEER_FLAGS" &
  pids+=($!)
done < "$HOSTS"
"$BIN/master" run --config "$CONFIG" --out "$OUT" --listen "0.0.0.0:$PORT"
wait "${pids[@]}"
