"""The Evaluator's time per generation against the master's on the same judging and population.

A master run of the tournament scheme with one generation an epoch, so that every generation's
population is in a checkpoint; then an Evaluator with the same judging settings on each of those
populations. Both play the same kind of match tasks on the same threads; their openings differ
(the Evaluator draws its own), so the comparison is per generation and per 1 000 plies.

    target/venv/bin/python python/bench/evaluator_vs_master.py [--generations 10] [--threads 2]

Binaries come from LOA_BIN_DIR (default the workspace's target/release). Run it on a quiet machine.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import loa_evolve as le

JUDGING = dict(opponents=0, fixed_opponents=["aloa:1", "aloa:2"], opening_plies=4)

CONFIG = """\
seed = {seed}
population = {population}
epochs = {generations}
generations_per_epoch = 1
network_depth = {depth}

[benchmark]
reference = "aloa"
depth = 1

[mutation]
probability = 1.0
[mutation.operator.gaussian]
sigma = 0.05
decay = 1.0

[selection.scheme.tournament]
size = 3
elitism = 2
crossover_rate = 0.25
opponents = {opponents}
fixed_opponents = {fixed}
fixed_matches = {fixed_matches}
opening_plies = {opening_plies}
"""


def measure(argv=None):
    """Plays both sides; returns the arguments and one (side, round, generation, seconds, games,
    plies) row per generation and side."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=int, default=20)
    ap.add_argument("--population", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fixed-matches", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3, help="master, Evaluator, master, ... pairs")
    args = ap.parse_args(argv)
    bins = Path(os.environ.get("LOA_BIN_DIR") or Path(__file__).resolve().parents[2] / "target" / "release")
    master = str(bins / "master")

    with tempfile.TemporaryDirectory(prefix="evaluator-vs-master-") as tmp:
        return args, play(args, master, Path(tmp))


def play(args, master, work):
    config = work / "run.toml"
    config.write_text(
        CONFIG.format(
            seed=args.seed,
            population=args.population,
            generations=args.generations,
            depth=args.depth,
            opponents=JUDGING["opponents"],
            fixed=json.dumps(JUDGING["fixed_opponents"]),
            fixed_matches=args.fixed_matches,
            opening_plies=JUDGING["opening_plies"],
        )
    )
    rows = []  # (side, round, generation, seconds, games, plies) per generation and side
    populations = None
    for r in range(args.rounds):
        run = work / f"run-{r}"
        subprocess.run([master, "run", "--config", str(config), "--out", str(run),
                        "--threads", str(args.threads), "--quiet"], check=True, stdout=subprocess.DEVNULL)
        gens = [json.loads(line) for line in (run / "generations.jsonl").open()]
        for g in gens:
            rows.append(("master", r, g["generation"], g["seconds"], g["games"], g["games"] * g["mean_plies"]))
        if populations is None:
            populations = []
            for e in range(args.generations):
                pop = []
                for i in range(args.population):
                    out = work / f"e{e}-{i}.json"
                    subprocess.run([master, "export", str(run), "--epoch", str(e), "--individual", str(i),
                                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
                    pop.append(le.Network.read(out).weights)
                populations.append(np.stack(pop))
        with le.Evaluator(seed=args.seed, depth=args.depth, threads=args.threads, fixed_matches=args.fixed_matches,
                          **JUDGING) as ev:
            for e, pop in enumerate(populations):
                t = time.perf_counter()
                ev.evaluate(pop)
                rows.append(("evaluator", r, e + 1, time.perf_counter() - t, ev.last_games, ev.last_plies))
    return rows


def main(argv=None) -> int:
    args, rows = measure(argv)

    print(f"{args.generations} generations of {args.population}, judging {JUDGING}, "
          f"{args.fixed_matches} fixed matches, depth {args.depth}, "
          f"{args.threads} threads, {os.cpu_count()} cores, {args.rounds} rounds")
    print("side       round  s/generation (median)  games/gen  ms per 1000 plies")
    summary = {}
    for side in ("master", "evaluator"):
        for r in range(args.rounds):
            mine = [x for x in rows if x[0] == side and x[1] == r]
            secs = [x[3] for x in mine]
            plies = sum(x[5] for x in mine)
            per_kply = 1000 * sum(secs) / plies * 1000
            summary.setdefault(side, []).append(per_kply)
            print(f"{side:10} {r:5}  {statistics.median(secs):20.3f}  {statistics.mean(x[4] for x in mine):9.0f}"
                  f"  {per_kply:17.1f}")
    m, e = statistics.median(summary["master"]), statistics.median(summary["evaluator"])
    print(f"Evaluator / master, time per 1000 plies (median of rounds): {e / m:.3f}")
    ms = [x[3] for x in rows if x[0] == "master"]
    es = [x[3] for x in rows if x[0] == "evaluator"]
    print(f"Evaluator / master, seconds per generation (all rounds): {sum(es) / sum(ms):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
