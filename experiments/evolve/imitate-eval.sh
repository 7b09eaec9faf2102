#!/bin/bash
# A single network file, searching 3 ply, against each opponent: MATCHES two-game matches
# (default 80) from 4 random opening plies, each played once with the net as A and once as B
# (criterion 4 favours neither), like eval.sh does for a run's survivors.
#   SEED=12 experiments/evolve/imitate-eval.sh NAME NET.json OUT random:3 aloa:3 aloa:5
set -eu
name=$1; net=$2; out=$3; shift 3
mkdir -p "$out"
for opp in "$@"; do
  tag=$(echo "$opp" | tr -d ':')-s${SEED:-12}
  cat > "$out/$name-$tag.toml" <<EOT
title = "$name (3 ply) vs $opp, seed ${SEED:-12}"
a = "net:3:$net"
b = "$opp"
matches = ${MATCHES:-80}
seed = ${SEED:-12}
opening_plies = 4
swap_colours = true
EOT
  target/release/master experiment --config "$out/$name-$tag.toml" --out "$out/$name-$tag.jsonl" --quiet > "$out/$name-$tag.txt"
  grep "criterion 4 as a tie" "$out/$name-$tag.txt" | sed "s|^ *|$name vs $opp (seed ${SEED:-12}): |"
done
