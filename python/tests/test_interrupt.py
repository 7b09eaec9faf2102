"""Ctrl-C stops a long call cleanly: KeyboardInterrupt, and the evaluator works on."""

import signal
import subprocess
import sys
import textwrap
import time

SCRIPT = textwrap.dedent(
    """
    import signal
    import time
    import numpy as np
    import loa_evolve as le

    pop = np.random.default_rng(0).uniform(-1, 1, (100, le.weight_count("board-nonad-100-20-1")))
    # Random networks against the random heuristic play long games: about 0.3 s a candidate.
    settings = dict(opponents=0, fixed_opponents=["random:4"], depth=3, threads=1)
    # Python raises KeyboardInterrupt only where SIGINT was not ignored when it started (a
    # background job's children start with it ignored), so the test says what it wants.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with le.Evaluator(**settings) as ev:
        print("ready", flush=True)
        began = time.monotonic()
        try:
            ev.evaluate(pop)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", round(time.monotonic() - began, 1), ev.calls, flush=True)
        # It goes on, and its next call is still the first generation: a fresh one's.
        after = ev.evaluate(pop[:2])
    with le.Evaluator(**settings) as fresh:
        assert (fresh.evaluate(pop[:2]) == after).all()
    print("same", flush=True)
    """
)


def interrupted(script):
    """Runs ``script``, sends it SIGINT a second after it prints "ready", and returns the words
    of its "interrupted" line; checks that it then printed "same" and exited cleanly."""
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    lines = out.split("\n")
    assert lines[0].startswith("interrupted"), (out, err)
    assert lines[1] == "same", (out, err)
    assert child.returncode == 0, err
    return lines[0].split()[1:]


def test_ctrl_c_raises_keyboard_interrupt():
    seconds, calls = interrupted(SCRIPT)
    # The task in hand is finished, not the call (100 candidates: half a minute and more).
    assert float(seconds) < 30 and int(calls) == 0


MATCH_SCRIPT = textwrap.dedent(
    """
    import signal
    import time
    import loa_evolve as le

    # Python raises KeyboardInterrupt only where SIGINT was not ignored when it started (a
    # background job's children start with it ignored), so the test says what it wants.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print("ready", flush=True)
    began = time.monotonic()
    try:
        # ALoA(5) against itself: some 25 ms a game, so the whole series takes hours.
        le.play_match("aloa:5", "aloa:5", games=1_000_000, opening_plies=4, threads=1)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", round(time.monotonic() - began, 1), flush=True)
    # And the next call plays as a fresh one would.
    assert le.play_match("random:1", "random:2", games=2, seed=3).games == le.play_match(
        "random:1", "random:2", games=2, seed=3
    ).games
    print("same", flush=True)
    """
)


def test_ctrl_c_stops_a_match():
    (seconds,) = interrupted(MATCH_SCRIPT)
    # The game in hand is finished, not the series.
    assert float(seconds) < 30
