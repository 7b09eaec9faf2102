#!/bin/bash
# Every survivor of a run's epoch, searching 3 ply, against each opponent: MATCHES matches per
# survivor (default 80; 5 for a population of 16) from 4 random opening plies, each played once
# with the net as A and once as B, so criterion 4 (A wins drawn matches) favours neither.
#   MATCHES=5 experiments/evolve/eval.sh NAME RUN EPOCH OUT random:3 aloa:3 aloa:5
# SEED (default 12) chooses the openings.
set -eu
name=$1; run=$2; epoch=$3; out=$4; shift 4
mkdir -p "$out"
for opp in "$@"; do
  tag=$(echo "$opp" | tr -d ':')
  cat > "$out/$name-$tag.toml" <<EOT
title = "$name, epoch $epoch survivors (3 ply) vs $opp"
a = "run:3:$run:epochs=$epoch"
b = "$opp"
matches = ${MATCHES:-80}
seed = ${SEED:-12}
opening_plies = 4
swap_colours = true
EOT
  target/release/master experiment --config "$out/$name-$tag.toml" --out "$out/$name-$tag.jsonl" --quiet > "$out/$name-$tag.txt"
  grep "criterion 4 as a tie" "$out/$name-$tag.txt" | sed "s|^ *|$name vs $opp: |"
done
