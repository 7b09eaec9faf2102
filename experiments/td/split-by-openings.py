"""A `loa match --out` record's games won by the first player, split by whether their pair's
opening is listed (one pair index a line, as `opening_overlap` prints), with Wilson intervals.

    cargo run --release -p loa-engine --example opening_overlap -- 2 116000 12 1000 > runs/met.txt
    target/release/loa match --black net:3:experiments/nets/random-init-td-features-s2.json \
      --white aloa:3 --games 2000 --seed 12 --opening-plies 4 --out runs/series.jsonl
    python3 experiments/td/split-by-openings.py runs/series.jsonl runs/met.txt
"""

import json
import sys
from math import sqrt


def wilson(k, n, z=1.96):
    p, d = k / n, 1 + z * z / n
    c, h = p + z * z / (2 * n), z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return 100 * p, 100 * (c - h) / d, 100 * (c + h) / d


def main(record, listed):
    met = {int(line) for line in open(listed) if line.strip()}
    tally = {True: [0, 0], False: [0, 0]}
    first = None
    for line in open(record):
        game = json.loads(line)
        if game.get("kind") != "game":
            continue
        first = first or game["black"]
        outcome = game["outcome"]
        won = isinstance(outcome, dict) and game.get(outcome.get("win")) == first
        t = tally[game["pair"] in met]
        t[0] += won
        t[1] += 1
    for key, label in ((True, "openings listed"), (False, "the others")):
        k, n = tally[key]
        if n:
            print(f"{label}: {first} won {k} of {n} games, %.1f %% (%.1f-%.1f)" % wilson(k, n))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: split-by-openings.py RECORD.jsonl PAIRS.txt")
    main(sys.argv[1], sys.argv[2])
