#!/usr/bin/env python3
"""Average the weights of chromosome files (same topology) into one chromosome file.

    experiments/evolve/average-nets.py OUT.json NET1.json NET2.json ...

Used for the averaging probe of the long run (README, "After the long run"): the mean of the
centres exported with `master export RUN --epoch E --individual 0 --out cE.json`.
"""
import json
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
out, paths = sys.argv[1], sys.argv[2:]
nets = [json.load(open(p)) for p in paths]
topologies = {json.dumps(n["topology"], sort_keys=True) for n in nets}
if len(topologies) != 1:
    sys.exit(f"the networks have different topologies: {sorted(topologies)}")
weights = [n["weights"] for n in nets]
if len({len(w) for w in weights}) != 1:
    sys.exit("the networks have different numbers of weights")
mean = [sum(column) / len(weights) for column in zip(*weights)]
json.dump({"topology": nets[0]["topology"], "weights": mean}, open(out, "w"))
print(f"{out}: the mean of {len(nets)} networks")
