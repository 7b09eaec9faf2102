"""Players and networks against the `loa` command."""

import json

import numpy as np
import pytest

import loa_evolve as le

THESIS = "board-nonad-100-20-1"


def best_line(loa, *args):
    out = dict(line.split(": ", 1) for line in loa.out("best", *args).splitlines())
    return out["move"], np.float32(out["value"]), int(out["nodes"])


@pytest.mark.parametrize("spec", ["aloa:2", "aloa-normal:2", "random:2:5", "randomann:2:9", "randomann:1"])
def test_best_matches_the_command(loa, spec):
    pos = le.Position().play(["b1-b3", "a2-c2"])
    for seed in (0, 11):
        best = le.Player(spec).best(pos, plies_played=2, seed=seed)
        mv, value, nodes = best_line(loa, "--player", spec, "--plies-played", "2", "--seed", str(seed), str(pos))
        assert (best.move, best.nodes) == (mv, nodes)
        assert np.float32(best.value) == value


def test_a_game_by_best_moves_is_the_match_games(loa):
    # Deterministic players from the start position: the first game of a match is theirs move by move.
    black, white = le.Player("aloa:1", board=6), le.Player("aloa-normal:1", board=6)
    pos, plies = le.Position("startpos", board=6), 0
    while pos.game_end(plies) is None:
        player = black if plies % 2 == 0 else white
        pos, plies = pos.play(player.best(pos, plies_played=plies).move), plies + 1
    game = le.play_match("aloa:1", "aloa-normal:1", board=6, threads=1).games[0]
    end = pos.game_end(plies)
    assert game["plies"] == plies
    assert game["reason"] == end.reason
    assert (game["outcome"] == "draw") == (end.outcome == "draw")
    if end.winner:
        assert game["outcome"] == {"win": end.winner}


def test_network_evaluates_as_the_command(loa, tmp_path):
    rng = np.random.default_rng(3)
    weights = rng.uniform(-1, 1, le.weight_count(THESIS)).astype(np.float32)
    net = le.Network(weights, THESIS)
    path = tmp_path / "net.json"
    net.write(path)
    assert np.array_equal(le.Network.read(path).weights, weights)
    assert le.Network.read(path).id == net.id
    positions = [le.Position(), le.Position().play("b1-b3"), le.Position().play(["b1-b3", "a2-c2"])]
    for pos in positions:
        # The command prints the float32 in its shortest form: read back, it is the same float32.
        assert np.float32(net.evaluate(pos)) == np.float32(loa.out("eval", "--weights", str(path), str(pos)).split()[-1])
    assert net.evaluate_many(positions).tolist() == [net.evaluate(p) for p in positions]
    # float64 weights are the same network once rounded to float32; a list too.
    assert le.Network(weights.astype(np.float64), THESIS).id == net.id
    assert le.Network(weights.tolist(), THESIS).id == net.id
    # Every other element: a strided array is read all the same.
    strided = np.repeat(weights, 2)[::2]
    assert not strided.flags.c_contiguous and le.Network(strided, THESIS).id == net.id
    # A network player is the `net:D:FILE` spec.
    pos = positions[1]
    a = le.Player.from_network(net, 2).best(pos)
    b = le.Player(f"net:2:{path}").best(pos)
    assert (a.move, a.value, a.nodes) == (b.move, b.value, b.nodes)


def test_small_board_network():
    shape = "5x5-board-25-12-1"
    net = le.Network(np.zeros(le.weight_count(shape)), shape)
    assert net.board == "5x5" and len(net) == le.weight_count(shape)
    assert net.evaluate(le.Position("startpos", board=5)) == 0.0
    with pytest.raises(ValueError, match="5x5"):
        net.evaluate(le.Position())


def test_bad_specs_shapes_and_weights_carry_the_commands_words(loa):
    for spec in ["aloa", "aloa:0", "nobody:3", "net:2:/no/such/file.json", "run:2:dir:epochs=1"]:
        with pytest.raises(ValueError) as e:
            le.Player(spec)
        assert str(e.value) in loa.error("best", "--player", spec, le.START_TEXT)
    with pytest.raises(ValueError) as e:
        le.Player("randomann:2", board=6)
    assert str(e.value) in loa.error("match", "--black", "randomann:2", "--white", "aloa:1", "--board", "6x6")
    with pytest.raises(ValueError, match="board"):
        le.Player("aloa:1", board="4x4")
    with pytest.raises(ValueError, match="the player is for the 8x8 board"):
        le.Player("aloa:1").best(le.Position("startpos", board=6))
    with pytest.raises(ValueError, match="shape"):
        le.Network(np.zeros(10), "board-nonad-100-x-1")
    with pytest.raises(ValueError, match="2041"):
        le.Network(np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError, match="dtype int64"):
        le.Network(np.zeros(2041, dtype=np.int64))
    with pytest.raises(ValueError, match="1-D"):
        le.Network(np.zeros((1, 2041), dtype=np.float32))
    with pytest.raises(ValueError, match="finite"):
        le.Network(np.full(2041, np.nan))
    with pytest.raises(ValueError, match="weights"):
        le.Network("not weights")
    with pytest.raises(ValueError, match="depth must be 1 to 12, not 13"):
        le.Player.from_network(le.Network(np.zeros(2041)), 13)
    over = le.Position("b......./......../......../......../......../......../w......w/........ w")
    assert over.is_over and over.game_end().winner == "black"
    with pytest.raises(ValueError) as e:
        le.Player("aloa:1").best(over)
    assert str(e.value) in loa.error("best", "--player", "aloa:1", str(over))
    with pytest.raises(ValueError) as e:
        le.weight_count("nonsense")
    assert "nonsense" in str(e.value)
    assert json.loads(json.dumps(le.PLAYER_FORMS))
