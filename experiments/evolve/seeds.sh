#!/bin/bash
# The seeded comparison: every method of experiments/evolve/seeds/ run from several seeds, each to
# the same CPU budget. Idempotent: a run that exists is resumed up to its budget, one that has
# used it is left alone, so the script can be stopped (Ctrl-C) and called again in a later
# session. Each config validates its network against held-out openings (`[validation]`, the same
# seed for every run), so validation.jsonl is the run's learning curve against CPU and wall time.
#   experiments/evolve/seeds.sh [OUT]
# METHODS (names of seeds/*.toml), SEEDS, CPU (seconds per run; 14 400 = two hours of both of
# this machine's cores) and THREADS (embedded workers per run) override the defaults.
set -eu
out=${1:-runs/seeds}
here=$(dirname "$0")
master=${MASTER:-target/release/master}
cpu=${CPU:-14400}
mkdir -p "$out"
for method in ${METHODS:-thesis es es-hall-of-fame cma-es}; do
  for seed in ${SEEDS:-1 2 3}; do
    run=$out/$method-s$seed
    if [ -e "$run/checkpoints" ]; then
      # A run past its budget stops before playing anything (see --stop-after-cpu).
      "$master" resume "$run" --threads "${THREADS:-2}" --quiet --stop-after-cpu "$cpu"
    else
      # Only the run's seed changes: the first `seed =` line (the [validation] seed, which
      # follows it, stays the same, so every run meets the same held-out openings).
      sed "0,/^seed = .*/s//seed = $seed/" "$here/seeds/$method.toml" > "$out/$method-s$seed.toml"
      "$master" run --config "$out/$method-s$seed.toml" --out "$run" --threads "${THREADS:-2}" --quiet \
        --stop-after-cpu "$cpu"
    fi
  done
done
