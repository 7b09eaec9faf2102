#!/bin/bash
# The short trials quoted in docs/evolving.md and in this folder's README ("Evolution II"): each a
# config of this folder with a few settings changed, on one worker thread, killed when its CPU
# time is used up (ulimit -t; the checkpointed epochs stay). Their figures are in each run's
# validation.jsonl (`analysis validation`) or generations.jsonl (`analysis noise`).
#   experiments/evolve/trials.sh noise|cma|depth [OUT]
# noise: fixed_matches 1 and 3, and the common hall of fame, 120 generations each (~2 CPU-min);
# cma:   CMA-ES with 16 or 32 candidates and c_m 1 or 0.3, 100 CPU-s each;
# depth: the long ES trained at 1 and at 3 ply, validated at 3, 600 CPU-s each.
set -eu
what=${1:?noise, cma or depth}
out=${2:-runs/trials}
here=$(dirname "$0")
master=${MASTER:-target/release/master}
mkdir -p "$out"
# 100 held-out matches against ALoA(3) at 3 ply every $1 epochs.
validation() { printf '\n[validation]\nopponents = ["aloa:3"]\nmatches = 100\nevery = %s\nseed = 35\nnetwork_depth = 3\n' "$1"; }
# Runs $out/$1.toml for at most $2 CPU-seconds (no limit: 0).
run() {
  rm -rf "${out:?}/$1"
  ( [ "$2" = 0 ] || ulimit -t "$2"; "$master" run --config "$out/$1.toml" --out "$out/$1" --threads 1 --quiet ) || true
}
case $what in
  noise)
    for m in 1 3; do
      sed "s/^epochs = .*/epochs = 12/; s/^fixed_matches = .*/fixed_matches = $m\nreport_noise = true/" \
        "$here/es-ladder-equivariant.toml" > "$out/noise-fm$m.toml"
      run "noise-fm$m" 0
    done
    sed "s/^epochs = .*/epochs = 12/; s/^population = .*/population = 32/; /^\[validation\]/,\$d" \
      "$here/es-hall-of-fame.toml" > "$out/noise-hof.toml"
    run noise-hof 0
    "$(dirname "$master")/analysis" noise "$out"/noise-fm1 "$out"/noise-fm3 "$out"/noise-hof --last 100
    ;;
  cma)
    for n in 16 32; do
      for cm in 1 0.3; do
        { sed "s/^population = .*/population = $n/; s/^sigma = .*/&\nmean_learning_rate = $cm/" \
            "$here/cma-es.toml"; validation 5; } > "$out/cma-$n-cm$cm.toml"
        run "cma-$n-cm$cm" 100
      done
    done
    ;;
  depth)
    for d in 1 3; do
      { sed "s/^network_depth = .*/network_depth = $d/" "$here/long-es-ladder-equivariant.toml"; validation 5; } \
        > "$out/depth-$d.toml"
      run "depth-$d" 600
    done
    ;;
  *) echo "trials.sh: unknown trial \`$what\`: noise, cma or depth" >&2; exit 2 ;;
esac
