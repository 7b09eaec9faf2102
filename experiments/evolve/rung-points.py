#!/usr/bin/env python3
"""The ladder's progress in a run's generations.jsonl: the first generation on each rung, then
the perturbations' (or candidates') mean points per game against the rung they met, per block
of generations (only the generations of the block's last rung count).

    experiments/evolve/rung-points.py RUN [BLOCK]    # BLOCK defaults to 500 generations
"""
import json
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    run, block = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 500
    with open(f"{run}/generations.jsonl") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows = [r for r in rows if r.get("fitness", {}).get("rung") is not None]
    if not rows:
        sys.exit(f"{run}: no generation climbs a ladder")
    first = {}
    for r in rows:
        first.setdefault(r["fitness"]["rung"], r["generation"])
    print("first generation on each rung: " + ", ".join(f"rung {k} at {g}" for k, g in sorted(first.items())))
    for start in range(0, len(rows), block):
        chunk = rows[start:start + block]
        rung = chunk[-1]["fitness"]["rung"]
        points = [r["fitness"]["vs_rung"] for r in chunk if r["fitness"]["rung"] == rung]
        print(f"generations {chunk[0]['generation']}-{chunk[-1]['generation']}: rung {rung}, "
              f"{sum(points) / len(points):.3f} points/game")


main()
