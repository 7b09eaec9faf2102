#!/bin/bash
# `loa td` of a checkout before the td method (REF, e.g. a worktree at 9109e63) against this checkout's `master run` with the td method, from the
# committed experiments/td configurations, shortened: 2 epochs' games, 40 validation matches.
set -u
R=${1:?usage: td.sh REF_CHECKOUT [OUT]: REF built with cargo build --release}; M=$(cd "$(dirname "$0")/../.." && pwd); O=${2:-$M/runs/compare/td}; mkdir -p $O
for b in 5x5 6x6 8x8; do
  case $b in 8x8) games=2000;; *) games=4000;; esac
  for s in 1 2 3; do
    d=$O/$b-s$s; rm -rf $d; mkdir -p $d
    sed -e "0,/^seed = .*/s//seed = $s/" -e "s/^games = .*/games = $games/" -e "s/^matches = .*/matches = 40/" \
      $R/experiments/td/$b.toml > $d/ref.toml
    sed -e "0,/^seed = .*/s//seed = $s/" -e "s/^epochs = .*/epochs = 2/" -e "s/^matches = .*/matches = 40/" \
      $M/experiments/td/$b.toml > $d/new.toml
    $R/target/release/loa td --config $d/ref.toml --out $d/ref --threads 2 --quiet > $d/ref.out 2>&1 || echo "ref failed $b $s"
    $M/target/release/master run --config $d/new.toml --out $d/new --threads 2 --quiet > $d/new.out 2>&1 || echo "new failed $b $s"
    $M/target/release/master export $d/new --best --out $d/new-net.json > /dev/null 2>&1 || echo "export failed $b $s"
    S=$M/experiments/machinery/strip_timing.py
    # `loa td` counted games where the method counts batches: serial and generation differ.
    python3 $S $d/ref/validation.jsonl serial generation epoch > $d/ref-val.txt
    python3 $S $d/new/validation.jsonl serial generation epoch > $d/new-val.txt
    w=$(python3 -c 'import json,struct,sys
a,b=(json.load(open(f)) for f in sys.argv[1:])
f=lambda n: [struct.pack("<f",x) for x in n["weights"]]
print("bit-equal" if a["topology"]==b["topology"] and f(a)==f(b) else "DIFFER")' $d/ref/net.json $d/new-net.json)
    v=$(cmp -s $d/ref-val.txt $d/new-val.txt && echo same || echo DIFFER)
    echo "$b seed $s: weights $w, validation lines ($(wc -l < $d/ref-val.txt)) $v"
  done
done
