#!/bin/bash
# One thesis epoch (experiments/thesis.toml with epochs = 1: 10 generations and the benchmarks
# of epochs 0 and 1) with two master builds, interleaved ROUNDS times (default 3), printing user
# and wall seconds of each, then whether their epoch-1 checkpoints are byte-identical. Issue 14's
# "core-seconds per thesis generation" is the least user time / 10.
#   experiments/thesis-epoch-bench.sh /path/to/old/master target/release/master
set -eu
base=$1; new=$2; rounds=${ROUNDS:-3}
tmp=$(mktemp -d)
sed 's/^epochs = .*/epochs = 1/' experiments/thesis.toml > "$tmp/thesis1.toml"
for round in $(seq 1 "$rounds"); do
  for which in base new; do
    bin=$base; [[ $which == new ]] && bin=$new
    rm -rf "$tmp/$which"
    /usr/bin/time -f "$which round $round: %U user s, %e wall s" \
      "$bin" run --config "$tmp/thesis1.toml" --out "$tmp/$which" --threads 2 --quiet > /dev/null
  done
done
if cmp -s "$tmp/base/checkpoints/epoch-00001.ckpt" "$tmp/new/checkpoints/epoch-00001.ckpt"; then
  echo "epoch-1 checkpoints identical"
else
  echo "epoch-1 checkpoints DIFFER"
fi
rm -rf "$tmp"
