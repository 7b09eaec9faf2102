#!/usr/bin/env bash
# Screenshot of the live run dashboard: starts a quick run with --dashboard (quick.toml plus a
# small held-out validation, so the page shows every panel), waits for its first epoch
# benchmarks, photographs the page with headless Chromium and stops the master.
#
#   experiments/dashboard/screenshot.sh [OUT.png]        (default: docs/dashboard.png)
#
# Installs Debian's `chromium` package if no Chromium is found (needs root or sudo). The run goes
# to a temporary directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-docs/dashboard.png}
PORT=${PORT:-18080}
EPOCHS_WANTED=${EPOCHS_WANTED:-2}   # epoch reports to wait for (epoch 0 is the initial population)

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core
  CHROMIUM=$(command -v chromium)
fi

cargo build --release -p loa-master
RUN=$(mktemp -d)/quick
PROFILE=$(mktemp -d)
CONFIG=$(dirname "$RUN")/quick.toml
cat experiments/quick.toml - > "$CONFIG" <<'TOML'

[validation]
opponents = ["aloa:3", "random:3"]
matches = 20
TOML
target/release/master run --config "$CONFIG" --out "$RUN" --quiet \
  --dashboard "127.0.0.1:$PORT" --dashboard-linger 600 &
MASTER=$!
cleanup() { kill "$MASTER" 2>/dev/null || true; wait "$MASTER" 2>/dev/null || true; rm -rf "$PROFILE" "$(dirname "$RUN")"; }
trap cleanup EXIT

# Wait until the wanted epochs are benchmarked and the next generation has started.
for _ in $(seq 1 600); do
  STATUS=$(curl -fsS "http://127.0.0.1:$PORT/api/status" 2>/dev/null || true)
  if [ -n "$STATUS" ] && python3 - "$STATUS" "$EPOCHS_WANTED" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
sys.exit(0 if s["epochs_recorded"] >= int(sys.argv[2]) and (s["state"] != "benchmark") else 1)
PY
  then break; fi
  sleep 1
done
sleep 3   # a couple of tasks/s samples

"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$PROFILE" --hide-scrollbars --window-size=1280,1600 \
  --virtual-time-budget=5000 --screenshot="$OUT" "http://127.0.0.1:$PORT/" 2>/dev/null
ls -l "$OUT"
