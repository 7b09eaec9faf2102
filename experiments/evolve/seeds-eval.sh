#!/bin/bash
# The seeded comparison's final networks, measured: for each run directory, its last epoch's
# network, the one its validation played (`master export --validated`: ES and CMA-ES the centre
# or mean, PBT the best learner of its last ranking, the knockout the best by benchmark), goes to
# RUN/final.json and plays 4 000 matches against ALoA(3) (1 000 openings each of seeds 12 and
# 14, the net as A and as B) and 800 against ALoA(5) (200 each), at 3 ply, through eval.sh.
# The run's learning curve (validation.jsonl) and its configuration with `epochs` set to the epoch
# the budget stopped it at are kept in OUT/RUN/: `analysis validation OUT/*/` draws the chart
# without the run directories, and `master run --config OUT/RUN/config.toml` replays the run to
# the same final network, whatever the machine's speed.
#   experiments/evolve/seeds-eval.sh OUT runs/seeds/*-s[123]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
mkdir -p "$out"
for run in "$@"; do
  name=$(basename "$run")
  last=$(($(wc -l < "$run/epochs.jsonl") - 1))
  target/release/master export "$run" --epoch "$last" --validated --out "$run/final.json"
  echo "$name: epoch $last"
  mkdir -p "$out/$name"
  cp "$run/validation.jsonl" "$out/$name/validation.jsonl"
  sed "0,/^epochs = .*/s//epochs = $last/" "$run/config.toml" > "$out/$name/config.toml"
  for seed in 12 14; do
    SEED=$seed MATCHES=1000 "$here/eval.sh" "$name-final" "$run/final.json" - "$out" aloa:3
    SEED=$seed MATCHES=200 "$here/eval.sh" "$name-final5" "$run/final.json" - "$out" aloa:5
  done
done
