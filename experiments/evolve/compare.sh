#!/bin/bash
# The equal-compute comparison of the selection schemes: each scheme's run gets the same CPU time (ulimit -t,
# default 480 s) on one worker thread, and stops when it is used up; every epoch until then is
# checkpointed, so the last one is what gets evaluated (eval.sh).
#   experiments/evolve/compare.sh [OUT [CPU_SECONDS]]
# SCHEMES="blend tournament" runs other configs of this folder (names without .toml).
set -eu
out=${1:-runs/evolve}; cpu=${2:-480}
here=$(dirname "$0")
mkdir -p "$out"
for scheme in ${SCHEMES:-knockout mu-plus-lambda mu-plus-lambda-judged es-points es-benchmark-score es-ladder}; do
  rm -rf "$out/$scheme"
  # The run is killed by SIGXCPU when its CPU time is used up: not an error here.
  ( ulimit -t "$cpu"; target/release/master run --config "$here/$scheme.toml" --out "$out/$scheme" --threads 1 --quiet ) || true
done
