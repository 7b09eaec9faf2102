#!/bin/bash
# The seeded comparison: every method of experiments/evolve/seeds/ run from several seeds, each to
# the same CPU budget. Idempotent: a run that exists is resumed up to its budget, one that has
# used it stops at once, so the script can be stopped (Ctrl-C) and called again in a later
# session. Each config validates its network against held-out openings (`[validation]`, the same
# seed for every run), so validation.jsonl is the run's learning curve against CPU and wall time.
#   experiments/evolve/seeds.sh [OUT]
# METHODS (names of seeds/*.toml, or of CONFIGS/*.toml when CONFIGS names another directory),
# SEEDS, CPU (seconds per run; 14400 = two hours of both of this machine's cores), JOBS (runs at
# once) and THREADS (embedded workers per run) override the defaults: one run at a time on every
# core. JOBS=2 THREADS=1 keeps both cores as busy with less
# waiting at the end of generations, and gives each run half the machine's wall time.
# REPLAY=DIR replays the runs kept in DIR by seeds-eval.sh (DIR/METHOD-sN/config.toml, whose
# `epochs` is where the budget stopped the run) to the same final networks, with no budget.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --one ]; then
  # One run: --one OUT METHOD SEED.
  out=$2 method=$3 seed=$4
  run=$out/$method-s$seed
  master=${MASTER:-target/release/master}
  flags=(--threads "${THREADS:-$(nproc)}" --quiet)
  if [ -n "${REPLAY:-}" ]; then
    config=$REPLAY/$method-s$seed/config.toml
  else
    config=${CONFIGS:-$here/seeds}/$method.toml
    flags+=(--stop-after-cpu "${CPU:-14400}")
  fi
  if [ -e "$run/checkpoints" ]; then
    "$master" resume "$run" "${flags[@]}"
  else
    # Only the run's seed changes: the first `seed =` line. The [validation] seed, which follows
    # it, stays, so every run meets the same held-out openings.
    sed "0,/^seed = .*/s//seed = $seed/" "$config" > "$out/$method-s$seed.toml"
    "$master" run --config "$out/$method-s$seed.toml" --out "$run" "${flags[@]}"
  fi
  exit
fi
out=${1:-runs/seeds}
mkdir -p "$out"
# Seed by seed, so the first seed of every method is done first.
for seed in ${SEEDS:-1 2 3}; do
  for method in ${METHODS:-thesis es es-hall-of-fame cma-es}; do echo "$method $seed"; done
done | xargs -P "${JOBS:-1}" -L 1 bash -c '"$0" --one "$1" $2 $3' "$here/seeds.sh" "$out"
