"""The Evaluator: the same fitness on any number of threads and on a remote worker, fitness as
the games say, and its refusals."""

import subprocess
from pathlib import Path
import time

import numpy as np
import pytest

import loa_evolve as le

THESIS = "board-nonad-100-20-1"
SMALL = "5x5-board-25-12-1"


def population(shape, n, seed):
    return np.random.default_rng(seed).uniform(-1, 1, (n, le.weight_count(shape)))


def settings(**extra):
    base = dict(opponents=2, fixed_opponents=["random:1"], fixed_matches=2, opening_plies=2, seed=4)
    base.update(extra)
    return base


def run(threads, calls=2, **kwargs):
    with le.Evaluator(SMALL, threads=threads, **settings(**kwargs)) as ev:
        return [ev.evaluate(population(SMALL, 6, c)) for c in range(calls)]


def test_one_and_two_threads_give_the_same_fitness():
    one, two = run(1), run(2)
    for a, b in zip(one, two):
        assert a.dtype == np.float64 and a.shape == (6,)
        assert np.array_equal(a, b)
    # The second call is another generation: other draws of peers, other openings.
    again = run(1, calls=1)
    assert np.array_equal(again[0], one[0])


def test_fitness_is_the_games_points(loa, tmp_path):
    # A depth-1 network against a deterministic player from the start position: one two-game
    # match whose games are the same whatever the seeds, as `loa match` plays them.
    weights = population(THESIS, 3, 1).astype(np.float32)
    with le.Evaluator(THESIS, opponents=0, fixed_opponents=["aloa:1"], threads=1) as ev:
        fitness = ev.evaluate(weights)
    plies = 0
    for row, f in zip(weights, fitness):
        path = tmp_path / "net.json"
        le.Network(row).write(path)
        match = le.play_match(f"net:1:{path}", "aloa:1", games=2)
        side = match.summary["sides"][0]
        plies += sum(g["plies"] for g in match.games)
        # Points per game: win 1, draw 1/2.
        assert f == (side["wins"] + side["draws"] / 2) / 2
    assert (ev.last_games, ev.last_plies) == (6, plies)
    with le.Evaluator(THESIS, opponents=0, fixed_opponents=["aloa:1"], fitness="benchmark-score") as ev:
        scores = ev.evaluate(weights)
    for row, s in zip(weights, scores):
        le.Network(row).write(path)
        side = le.play_match(f"net:1:{path}", "aloa:1", games=2).summary["sides"][0]
        assert s == side["mean_score"]


DATA = Path(__file__).parent / "data"


def remote_fitness(worker_bin, scheme, worker_args=(), **serve):
    """Two calls' fitness on one remote worker joining at ``scheme://ADDRESS``."""
    with le.Evaluator(SMALL, threads=0, listen="127.0.0.1:0", token="secret", **serve, **settings()) as ev:
        assert ev.address and ev.address.startswith("127.0.0.1:")
        worker = subprocess.Popen(
            [str(worker_bin), "--master", f"{scheme}://{ev.address}", "--token", "secret", "--slots", "1"]
            + list(worker_args),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            # Joined, before a call that would wait for it forever.
            deadline = time.monotonic() + 60
            while ev.workers == 0 and worker.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert ev.workers == 1, worker.stderr.read().decode() if worker.poll() is not None else "not joined"
            got = [ev.evaluate(population(SMALL, 6, c)) for c in range(2)]
            assert ev.workers == 1
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    return got


def test_a_remote_worker_gives_the_same_fitness(worker_bin):
    for a, b in zip(run(1), remote_fitness(worker_bin, "http")):
        assert np.array_equal(a, b)


def test_a_remote_worker_over_tls_gives_the_same_fitness(worker_bin):
    # A worker at https:// that trusts the certificate: it could not join a plain server.
    tls = dict(tls_cert=DATA / "loopback.pem", tls_key=DATA / "loopback.key")
    got = remote_fitness(worker_bin, "https", ["--tls-ca", str(DATA / "loopback.pem")], **tls)
    for a, b in zip(run(1), got):
        assert np.array_equal(a, b)


def test_tls_needs_both_files_and_a_listen_address(tmp_path):
    pem, key = DATA / "loopback.pem", DATA / "loopback.key"
    for kw, words in [
        (dict(tls_cert=pem), "tls_cert: needs tls_key"),
        (dict(tls_key=key), "tls_key: needs tls_cert"),
        (dict(tls_cert=pem, tls_key=key), "tls_cert: needs listen"),
    ]:
        with pytest.raises(ValueError, match=words):
            le.Evaluator(SMALL, threads=1, **kw)
    with pytest.raises(OSError, match="missing.pem"):
        le.Evaluator(SMALL, threads=0, listen="127.0.0.1:0", tls_cert=tmp_path / "missing.pem", tls_key=key)


def test_tied_weights_are_the_networks_they_expand_to():
    kw = dict(opponents=0, fixed_opponents=["random:1"], fixed_matches=2, opening_plies=4, threads=1)
    with le.Evaluator(symmetry="equivariant", **kw) as tied, le.Evaluator(**kw) as full:
        assert tied.dimension == 277 and full.dimension == 2041
        x = np.random.default_rng(2).uniform(-1, 1, (3, tied.dimension))
        nets = [tied.network(row) for row in x]
        # Every value lands on its class's weights, and nowhere else.
        assert all(set(net.weights.tolist()) == set(row.astype(np.float32).tolist()) for net, row in zip(nets, x))
        assert np.array_equal(tied.evaluate(x), full.evaluate(np.stack([n.weights for n in nets])))
        with pytest.raises(ValueError, match="population row 0: 2041 values, the tied weights have 277 free"):
            tied.evaluate(np.zeros((3, 2041)))
    with pytest.raises(ValueError, match="unknown weight tying `mirror`"):
        le.Evaluator(symmetry="mirror")
    with pytest.raises(ValueError, match="tied on the thesis's shape"):
        le.Evaluator(SMALL, symmetry="invariant")


def test_the_call_index_and_properties():
    with le.Evaluator(SMALL, threads=1, **settings()) as ev:
        assert ev.calls == 0 and ev.dimension == le.weight_count(SMALL) and ev.shape == SMALL
        ev.evaluate(population(SMALL, 4, 0).astype(np.float32))
        assert ev.calls == 1 and ev.address is None and ev.rung == 0
    with pytest.raises(ValueError, match="closed"):
        ev.evaluate(population(SMALL, 4, 0))


def test_a_ladder_climbs():
    # Random networks against a ladder of a weak rung then a strong one: a rung beaten by
    # half the points moves them up.
    with le.Evaluator(SMALL, threads=1, opponents=0, ladder=["random:1", "aloa:2"], promote_at=0.01) as ev:
        ev.evaluate(population(SMALL, 4, 0))
        assert ev.rung == 1


@pytest.mark.parametrize(
    "kwargs,words",
    [
        (dict(fixed_opponents=["aloa"]), "invalid `Evaluator.fixed_opponents`"),
        (dict(fixed_opponents=["net:1:x.json"]), "invalid `Evaluator.fixed_opponents`"),
        (dict(fixed_matches=2), "invalid `Evaluator.fixed_matches`: must be at least 1, and above 1 only with opening_plies"),
        (dict(opening_plies=7), "invalid `Evaluator.opening_plies`: must be at most 6 on the 5x5 board, got 7"),
        (dict(opponents=0), "invalid `Evaluator`: needs opponents"),
        (dict(opponents=1, groups=2), "invalid `Evaluator.groups`"),
        (dict(fitness="elo"), "fitness: `elo` is not points or benchmark-score"),
        (dict(depth=0), "depth must be 1 to 12, not 0"),
        (dict(board="8x8"), "5x5"),
        (dict(threads=0), "threads must be at least 1"),
        (dict(listen="nowhere"), "listen: `nowhere`"),
        (dict(listen="127.0.0.1:0", verify="lots"), "verify"),
        (dict(listen="127.0.0.1:0", token="  "), "token is empty"),
        (dict(listen="0.0.0.0:0"), "token: required to listen on 0.0.0.0:0"),
        (dict(listen="0.0.0.0:0", token="short"), "token has 5 characters"),
        (dict(start="sideways"), "sideways"),
    ],
)
def test_bad_settings_name_the_setting(kwargs, words):
    with pytest.raises(ValueError) as e:
        le.Evaluator(SMALL, **kwargs)
    assert words in str(e.value)


def test_bad_populations_name_the_fault():
    with le.Evaluator(SMALL, threads=1, opponents=3) as ev:
        n = ev.dimension
        with pytest.raises(ValueError, match="must be below the 3 candidates"):
            ev.evaluate(np.zeros((3, n)))
        with pytest.raises(ValueError, match="dtype int32"):
            ev.evaluate(np.zeros((5, n), dtype=np.int32))
        with pytest.raises(ValueError, match="2-D"):
            ev.evaluate(np.zeros(n))
        with pytest.raises(ValueError, match="2-D NumPy array"):
            ev.evaluate([[0.0] * n] * 5)
        with pytest.raises(ValueError, match=f"population row 0: .*{n}"):
            ev.evaluate(np.zeros((5, n + 1)))
        bad = np.zeros((5, n))
        bad[2, 4] = np.inf
        with pytest.raises(ValueError, match="population row 2"):
            ev.evaluate(bad)
        assert ev.calls == 0
    with pytest.raises(ValueError, match="shape"):
        le.Evaluator("nonsense")


def test_a_second_thread_is_refused_while_a_call_runs():
    import threading

    # Long games (random networks against the random heuristic, about 4 s on one idle core: ten
    # times the wait below), so the first call is still running when the second comes; the
    # getters answer meanwhile.
    judging = dict(fixed_opponents=["random:3"], fixed_matches=8, opening_plies=4, depth=2)
    with le.Evaluator(opponents=0, threads=1, **judging) as ev:
        pop = population(THESIS, 24, 5)
        result = {}
        worker = threading.Thread(target=lambda: result.setdefault("fitness", ev.evaluate(pop)))
        worker.start()
        time.sleep(0.3)
        assert ev.calls == 0 and ev.rung == 0
        with pytest.raises(RuntimeError, match="already running"):
            ev.evaluate(pop)
        worker.join(timeout=120)
        assert not worker.is_alive() and result["fitness"].shape == (24,) and ev.calls == 1
