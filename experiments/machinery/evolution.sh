#!/bin/bash
# Evolution by the master of a checkout REF against this one: the same configurations, 2 epochs, validated every
# epoch on 20 matches; checkpoints byte for byte, metrics lines minus timing fields, and every
# individual of every epoch as `master export` writes it.
set -u
R=${1:?usage: evolution.sh REF_CHECKOUT [OUT]: REF built with cargo build --release}; M=$(cd "$(dirname "$0")/../.." && pwd); O=${2:-$M/runs/compare/evolution}; mkdir -p $O
for c in seeds/thesis seeds/es seeds/es-hall-of-fame seeds/cma-es knockout tournament mu-plus-lambda; do
  n=$(echo $c | tr / -); d=$O/$n; rm -rf $d; mkdir -p $d
  sed -e "s/^epochs = .*/epochs = 2/" -e "s/^every = .*/every = 1/" -e "s/^matches = .*/matches = 20/" \
    $M/experiments/evolve/$c.toml > $d/run.toml
  cmp -s $M/experiments/evolve/$c.toml $R/experiments/evolve/$c.toml || echo "$c: config differs between trees"
  for side in ref new; do
    B=$R; [ $side = new ] && B=$M
    $B/target/release/master run --config $d/run.toml --out $d/$side --threads 2 --quiet > $d/$side.out 2>&1 || echo "$side failed $c"
    pop=$(grep -m1 '^population' $d/run.toml | sed 's/[^0-9]//g')
    for e in 0 1 2; do for ((i=0;i<pop;i++)); do
      $B/target/release/master export $d/$side --epoch $e --individual $i 2>/dev/null; done; done > $d/$side-pop.txt
  done
  # A run that validates stores its clock, the payload's last 16 bytes (docs/checkpoints.md), and
  # the header's checksum covers it: compare the rest.
  ck=$(python3 -c 'import os,sys
r,n=sys.argv[1:]
if sorted(os.listdir(r))!=sorted(os.listdir(n)): print("different files"); sys.exit()
bad=[f for f in sorted(os.listdir(r)) if (lambda a,b: a[:16]!=b[:16] or a[24:-16]!=b[24:-16] or len(a)!=len(b))(open(r+"/"+f,"rb").read(),open(n+"/"+f,"rb").read())]
same=all(open(r+"/"+f,"rb").read()==open(n+"/"+f,"rb").read() for f in os.listdir(r))
print("DIFFER " + " ".join(bad) if bad else "identical" if same else "identical but the clock")' $d/ref/checkpoints $d/new/checkpoints)
  out="$n: checkpoints($(ls $d/ref/checkpoints | wc -l)) $ck"
  for j in generations epochs validation; do
    [ -f $d/ref/$j.jsonl ] || continue
    python3 "$M/experiments/machinery/strip_timing.py" $d/ref/$j.jsonl > $d/ref-$j.txt; python3 "$M/experiments/machinery/strip_timing.py" $d/new/$j.jsonl > $d/new-$j.txt
    out="$out; $j($(wc -l < $d/ref-$j.txt)) $(cmp -s $d/ref-$j.txt $d/new-$j.txt && echo same || echo DIFFER)"
  done
  out="$out; exported individuals($(grep -c . $d/ref-pop.txt) lines) $(cmp -s $d/ref-pop.txt $d/new-pop.txt && echo same || echo DIFFER)"
  echo "$out"
done
