#!/bin/bash
# Networks searching 3 ply against each opponent: MATCHES matches per network (default 80; 5 for
# a population of 16) from 4 random opening plies, each played once with the net as A and once
# as B, so criterion 4 (A wins drawn matches) favours neither. SEED (default 12) chooses the
# openings. RUN is either a run directory (every survivor of its epoch EPOCH plays) or a
# chromosome file NET.json (EPOCH is ignored; the outputs' names carry the seed).
#   MATCHES=5 experiments/evolve/eval.sh NAME RUN EPOCH OUT random:3 aloa:3 aloa:5
#   SEED=14   experiments/evolve/eval.sh NAME NET.json - OUT aloa:3
set -eu
name=$1; run=$2; epoch=$3; out=$4; shift 4
seed=${SEED:-12}
if [[ $run == *.json ]]; then
  a="net:3:$run"; what="$name (3 ply)"; suffix="-s$seed"; label="$name vs %s (seed $seed)"
else
  a="run:3:$run:epochs=$epoch"; what="$name, epoch $epoch survivors (3 ply)"; suffix=""; label="$name vs %s"
fi
mkdir -p "$out"
for opp in "$@"; do
  tag=$(echo "$opp" | tr -d ':')$suffix
  title="$what vs $opp"
  [[ -n $suffix ]] && title="$title, seed $seed"
  cat > "$out/$name-$tag.toml" <<EOT
title = "$title"
a = "$a"
b = "$opp"
matches = ${MATCHES:-80}
seed = $seed
opening_plies = 4
swap_colours = true
EOT
  target/release/master experiment --config "$out/$name-$tag.toml" --out "$out/$name-$tag.jsonl" --quiet > "$out/$name-$tag.txt"
  # shellcheck disable=SC2059 # the label is this script's own format
  grep "criterion 4 as a tie" "$out/$name-$tag.txt" | sed "s|^ *|$(printf "$label" "$opp"): |"
done
