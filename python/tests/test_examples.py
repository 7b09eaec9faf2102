"""The examples, each on a small budget."""

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def example(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SMALL = ["--generations", "2", "--popsize", "6", "--matches", "1", "--opening-plies", "2", "--validation-games", "4"]


def test_cma_on_threads_and_on_two_remote_workers_to_the_same_result(worker_bin, capsys):
    cma_thesis = example("cma_thesis")
    threads = cma_thesis.run(SMALL + ["--threads", "2"])
    workers = cma_thesis.run(SMALL + ["--workers", "2", "--worker-bin", str(worker_bin)])
    assert threads == workers
    assert len(threads["history"]) == 2 and all(len(f) == 6 for f in threads["history"])
    assert threads["summary"]["validation"]["games"] == 4
    assert "generation 2: mean" in capsys.readouterr().out


def test_the_evaluator_bench_plays_the_masters_games_on_its_populations(master_bin):
    spec = importlib.util.spec_from_file_location("bench", EXAMPLES.parent / "bench" / "evaluator_vs_master.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    args = ["--generations", "2", "--population", "4", "--rounds", "1", "--fixed-matches", "1", "--depth", "1"]
    _, rows = bench.measure(args)
    master = {g: (games, plies) for side, _, g, _, games, plies in rows if side == "master"}
    evaluator = {g: (games, plies) for side, _, g, _, games, plies in rows if side == "evaluator"}
    # The same judging: 4 candidates x 2 fixed opponents x 1 match x 2 games, each generation.
    assert sorted(master) == sorted(evaluator) == [1, 2]
    assert all(master[g][0] == evaluator[g][0] == 16 for g in master)
    assert all(plies > 16 for _, plies in evaluator.values())
