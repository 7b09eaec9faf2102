#!/bin/bash
# Where the batched network evaluation's floor is (README, Speed, round 6): builds two throwaway
# variants of this checkout's `loa` and runs `loa bench` for each against the unchanged build,
# interleaved. Their results are wrong on purpose; they only time what is left without a step.
#   no-tanh:     the hidden layer's activation `tanh` -> the identity in the exact batched evaluation
#   no-division: `numerator / denominator` -> `numerator * denominator` in tanh
#   experiments/tanh-floor.sh [ROUNDS]        (run from the repository's root after cargo build --release)
set -eu
rounds=${1:-2}
root=$(pwd)
for variant in no-tanh no-division; do
  tree=$(mktemp -d)/loa-$variant
  git worktree add -f --detach "$tree" HEAD > /dev/null
  case $variant in
    no-tanh) sed -i 's/self.group_output_inputs::<W>(accs, tanh);/self.group_output_inputs::<W>(accs, |x| x);/' "$tree/engine/src/network/forward.rs" ;;
    no-division) sed -i 's|let quotient = numerator / denominator;|let quotient = numerator * denominator;|' "$tree/engine/src/network/tanh.rs" ;;
  esac
  git -C "$tree" diff --quiet && { echo "$variant: the patch no longer applies" >&2; exit 1; }
  (cd "$tree" && CARGO_TARGET_DIR=/tmp/tanh-floor-target-$variant cargo build --release -q -p loa-cli)
  echo "== $variant (new) against this build (baseline)"
  /tmp/tanh-floor-target-$variant/release/loa bench --positions 100 --games 4 \
    --baseline "$root/target/release/loa" --rounds "$rounds" | grep -E "new/old|^network, incremental update"
  git worktree remove --force "$tree"
done
