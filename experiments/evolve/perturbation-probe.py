#!/usr/bin/env python3
"""How sharp an optimum is a network? Gaussian perturbations of it, scored against an opponent.

For each sigma, COUNT perturbations (every weight plus N(0, sigma), Python's generator seeded
with 3) each play GAMES games against OPPONENT at 3 ply (`loa match`, 4 random opening plies,
series seed 5); prints the points per game (win 1, draw 1/2) of each and their mean. This is the
probe that chose sigma for warm-es.toml. Run from the repository's root after `cargo build --release`:

    experiments/evolve/perturbation-probe.py experiments/nets/imitation-aloa.json aloa:3 0.005 0.01 0.02 0.05
"""
import json
import random
import re
import subprocess
import sys
import tempfile

COUNT, GAMES = 6, 200


def points(net_path, opponent):
    out = subprocess.run(
        ["target/release/loa", "match", "--black", f"net:3:{net_path}", "--white", opponent,
         "--games", str(GAMES), "--opening-plies", "4", "--threads", "1", "--seed", "5"],
        capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("net:3"))
    wins, losses, draws = map(int, re.search(r"(\d+) wins, (\d+) losses, (\d+) draws", line).groups())
    return (wins + draws / 2) / (wins + losses + draws)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    base = json.load(open(sys.argv[1]))
    opponent, sigmas = sys.argv[2], [float(s) for s in sys.argv[3:]]
    rng = random.Random(3)
    print(f"unperturbed: {points(sys.argv[1], opponent):.3f}")
    with tempfile.NamedTemporaryFile("w", suffix=".json") as tmp:
        for sigma in sigmas:
            scores = []
            for _ in range(COUNT):
                weights = [w + rng.gauss(0, sigma) for w in base["weights"]]
                tmp.seek(0)
                tmp.truncate()
                json.dump({"topology": base["topology"], "weights": weights}, tmp)
                tmp.flush()
                scores.append(points(tmp.name, opponent))
            print(sigma, " ".join(f"{s:.2f}" for s in scores), f"mean {sum(scores) / len(scores):.3f}")


if __name__ == "__main__":
    main()
