#!/bin/bash
# A single network file against each opponent (eval.sh with a chromosome file):
#   SEED=12 experiments/evolve/imitate-eval.sh NAME NET.json OUT random:3 aloa:3 aloa:5
set -eu
name=$1; net=$2; out=$3; shift 3
exec "$(dirname "$0")/eval.sh" "$name" "$net" - "$out" "$@"
