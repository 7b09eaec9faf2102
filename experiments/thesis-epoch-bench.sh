#!/bin/bash
# The cost of a thesis generation with its benchmark amortised, for two master builds,
# interleaved ROUNDS times (default 3).
#
# By default, each round and build: `master run` of experiments/thesis.toml with epochs = 1
# (10 generations and the benchmarks of epochs 0 and 1), then, timed on its own, `master resume
# --epochs 1`: one more epoch, that is 10 generations and one benchmark, which is what a
# generation costs in a long run (the first run pays the extra benchmark of epoch 0 and the
# initial population). Prints the user and wall seconds of both, then whether the builds' last
# epoch's survivors are identical. The "core-seconds per thesis generation" figure is the least
# user time of the resumed epoch / 10.
#
# EPOCHS=K (default 1) resumes for K epochs instead, in one process, as a long run goes on:
# what a process learns and keeps between epochs (ALoA's remembered searches) then counts as it
# does in a run; the figure is the user time / (10 K).
#
# WARMUP=W (default: none) times a later stretch of a run instead of its start, where the
# population's games have got shorter (86 plies a game in generation 1, 46 in generation 200):
# the new build runs W epochs once, untimed, and each round resumes a copy of that run with
# each build for K more epochs (`master resume --from-epoch W --epochs K`), timed.
#   experiments/thesis-epoch-bench.sh /path/to/old/master target/release/master
#   WARMUP=10 EPOCHS=10 ROUNDS=2 experiments/thesis-epoch-bench.sh OLD NEW
set -eu
base=$1; new=$2; rounds=${ROUNDS:-3}; epochs=${EPOCHS:-1}; warmup=${WARMUP:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -n $warmup ]]; then
  sed "s/^epochs = .*/epochs = $warmup/" experiments/thesis.toml > "$tmp/warmup.toml"
  "$new" run --config "$tmp/warmup.toml" --out "$tmp/warmup" --threads 2 --quiet > /dev/null
  echo "warm-up: $warmup epochs run by $new"
else
  sed 's/^epochs = .*/epochs = 1/' experiments/thesis.toml > "$tmp/thesis1.toml"
fi
for round in $(seq 1 "$rounds"); do
  for which in base new; do
    bin=$base; [[ $which == new ]] && bin=$new
    rm -rf "${tmp:?}/$which"
    if [[ -n $warmup ]]; then
      cp -r "$tmp/warmup" "$tmp/$which"
      /usr/bin/time -f "$which round $round: epochs $((warmup + 1))-$((warmup + epochs)) %U user s, %e wall s" \
        "$bin" resume "$tmp/$which" --from-epoch "$warmup" --epochs "$epochs" --threads 2 --quiet > /dev/null
    else
      /usr/bin/time -f "$which round $round: epochs 0-1 %U user s, %e wall s" \
        "$bin" run --config "$tmp/thesis1.toml" --out "$tmp/$which" --threads 2 --quiet > /dev/null
      /usr/bin/time -f "$which round $round: $epochs more epoch(s) %U user s, %e wall s" \
        "$bin" resume "$tmp/$which" --epochs "$epochs" --threads 2 --quiet > /dev/null
    fi
  done
done
# Builds of different checkpoint formats write different bytes for the same run, so compare
# what the run computed: every survivor of the last epoch, as each build exports it.
last=$((${warmup:-1} + epochs)); i=0; same=identical
while "$base" export "$tmp/base" --epoch "$last" --individual "$i" > "$tmp/base.json" 2> /dev/null; do
  "$new" export "$tmp/new" --epoch "$last" --individual "$i" > "$tmp/new.json" && cmp -s "$tmp/base.json" "$tmp/new.json" \
    || same=DIFFERENT
  i=$((i + 1))
done
[[ $i -gt 0 ]] || same="not compared (no survivors exported)"
echo "epoch $last: $i survivors, $same"
