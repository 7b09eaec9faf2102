#!/bin/sh
# Reruns every experiment of experiments/README.md at the sizes reported there, from the
# repository root: E1 (a GA run of 20 epochs), then the match experiments and the tables.
# Each step refuses to overwrite a run directory; delete runs/e1 to run E1 again.
set -e
cargo build --release
M=target/release/master
A=target/release/analysis
R=experiments/results
mkdir -p "$R"
$M run --config experiments/e1.toml --out runs/e1 --quiet
$A plot runs/e1 --out "$R/e1-analysis"
for e in e2 e3 e4 e5 e6 e7 e8-random e8-randomann; do
  $M experiment --config experiments/$e.toml --out "$R/$e.jsonl" --quiet | tee "$R/$e.txt"
done
$A matches "$R/e2.jsonl" --out "$R/e2.md"
$A matches "$R/e3.jsonl" --out "$R/e3.md"
$A matches "$R/e4.jsonl" "$R/e7.jsonl" --out "$R/e4-e7.md"
$A matches "$R/e5.jsonl" --out "$R/e5.md"
$A matches "$R/e6.jsonl" --out "$R/e6.md"
$A matches "$R/e8-random.jsonl" "$R/e8-randomann.jsonl" --out "$R/e8.md" --charts "$R/e8-charts" --block 124
