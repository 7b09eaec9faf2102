"""pycma evolving the thesis network's symmetry-tied weights with loa_evolve's Evaluator.

CMA-ES (the ``cma`` package) searches the 277 free parameters of the thesis network's
equivariant weight tying; each candidate is judged as the master's schemes judge, here in
two-game matches against the random heuristic from seeded openings, on threads or on remote
``worker`` processes. At the end the search's mean is measured against the same opponent in
fresh games (other seeds than the search saw).

    python examples/cma_thesis.py --generations 30 --popsize 16
    python examples/cma_thesis.py --workers 2 --worker-bin target/release/worker   # on loopback

The same arguments give the same history, on threads or on workers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

import cma
import numpy as np

import loa_evolve as le


def parse(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--generations", type=int, default=None, help="default 30, or no limit with --cpu-minutes")
    p.add_argument("--popsize", type=int, default=16)
    p.add_argument("--sigma", type=float, default=0.5, help="CMA-ES's initial step size")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--opponent", default="random:2", help="the fixed opponent's player spec")
    p.add_argument("--matches", type=int, default=4, help="two-game matches per candidate")
    p.add_argument("--opening-plies", type=int, default=4)
    p.add_argument("--depth", type=int, default=1, help="the networks' search depth")
    p.add_argument("--symmetry", default="equivariant", choices=["none", "invariant", "equivariant"])
    p.add_argument("--threads", type=int, default=None, help="embedded threads (default: every core)")
    p.add_argument("--workers", type=int, default=0, help="remote workers started on loopback instead")
    p.add_argument("--worker-bin", default="target/release/worker")
    p.add_argument("--cpu-minutes", type=float, default=None, help="stop once this process has used this much CPU")
    p.add_argument("--validation-games", type=int, default=200)
    p.add_argument("--out", default=None, help="write the final mean as a chromosome file")
    return p.parse_args(argv)


def run(argv: Optional[List[str]] = None) -> dict:
    """Runs the search; returns its history (fitness per generation) and the final measure."""
    args = parse(argv)
    settings = dict(
        opponents=0,
        fixed_opponents=[args.opponent],
        fixed_matches=args.matches,
        opening_plies=args.opening_plies,
        depth=args.depth,
        seed=args.seed,
        symmetry=args.symmetry,
    )
    workers = []
    if args.workers:
        settings.update(threads=0, listen="127.0.0.1:0", token=os.urandom(16).hex())
    else:
        settings.update(threads=args.threads)
    history = []
    began = time.process_time()
    with le.Evaluator(**settings) as ev:
        for _ in range(args.workers):
            command = [args.worker_bin, "--master", f"http://{ev.address}", "--token", settings["token"], "--slots", "1"]
            workers.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        try:
            es = cma.CMAEvolutionStrategy(
                np.zeros(ev.dimension), args.sigma, {"popsize": args.popsize, "seed": args.seed, "verbose": -9}
            )
            generations = args.generations if args.generations is not None else 30 if args.cpu_minutes is None else 10**9
            for generation in range(1, generations + 1):
                x = np.array(es.ask())
                fitness = ev.evaluate(x)
                es.tell(list(x), list(-fitness))  # CMA-ES minimises
                history.append(fitness.tolist())
                print(f"generation {generation}: mean {fitness.mean():.3f}  best {fitness.max():.3f}", flush=True)
                if args.cpu_minutes is not None and cpu_seconds(began) >= 60 * args.cpu_minutes:
                    break
            mean = ev.network(es.mean)
        finally:
            for w in workers:
                w.terminate()
                w.wait()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.out or os.path.join(tmp, "mean.json")
        mean.write(path)
        spec = f"net:{args.depth}:{path}"
        # Other seeds than the search's: games it has not seen.
        result = le.play_match(
            spec, args.opponent, games=args.validation_games, seed=args.seed + 10**6, opening_plies=args.opening_plies
        )
    side = result.summary["sides"][0]
    summary = dict(
        generations=len(history),
        evaluations=sum(len(f) for f in history),
        final_mean_fitness=float(np.mean(history[-1])),
        validation=dict(games=result.summary["games"], wins=side["wins"], losses=side["losses"], draws=side["draws"]),
        network_id=mean.id,
    )
    print(json.dumps(summary), flush=True)
    return dict(history=history, summary=summary)


def cpu_seconds(began: float) -> float:
    """CPU seconds of this process since `began` (its threads' games; remote workers' not counted)."""
    return time.process_time() - began


if __name__ == "__main__":
    run(sys.argv[1:])
