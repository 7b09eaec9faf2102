#!/bin/bash
# A network match as on a processor without AVX-512 (AVX2 only): for two
# revisions, builds `loa` in a throwaway worktree with every `is_x86_feature_detected!("avx512f")`
# in the engine patched to false (so the portable 8-lane paths run), then times
# `loa match --black randomann:3:1 --white randomann:3:2 --games 400 --threads 1 --opening-plies 4`
# with both builds interleaved ROUNDS times and prints each one's user seconds and least.
#   experiments/no-avx512-match.sh OLD_REV [NEW_REV (default HEAD)] [ROUNDS (default 4)]
set -eu
old=$1; new=${2:-HEAD}; rounds=${3:-4}
declare -A bin
for which in old new; do
  rev=$old; [[ $which == new ]] && rev=$new
  tree=$(mktemp -d)/loa-$which
  git worktree add -f --detach "$tree" "$rev" > /dev/null
  grep -rl 'is_x86_feature_detected!("avx512f")' "$tree/engine/src" |
    xargs sed -i 's/is_x86_feature_detected!("avx512f")/is_x86_feature_detected!("avx512f") \&\& false/'
  git -C "$tree" diff --quiet && { echo "$which: the patch does not apply" >&2; exit 1; }
  (cd "$tree" && CARGO_TARGET_DIR=/tmp/no-avx512-target-$which cargo build --release -q -p loa-cli)
  bin[$which]=/tmp/no-avx512-target-$which/release/loa
  git worktree remove --force "$tree"
done
for round in $(seq 1 "$rounds"); do
  for which in old new; do
    /usr/bin/time -f "$which %U" "${bin[$which]}" match --black randomann:3:1 --white randomann:3:2 \
      --games 400 --threads 1 --opening-plies 4 2>&1 > /dev/null | tail -1
  done
done | awk '{print; if (!($1 in m) || $2 < m[$1]) m[$1] = $2} END {print "least: old " m["old"] " user s, new " m["new"] " user s"}'
