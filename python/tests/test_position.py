"""Positions, moves and perft against the `loa` command."""

import pytest

import loa_evolve as le

BOARDS = ["5x5", "6x6", "7x7", "8x8"]


def walk(board: str, plies: int, stride: int = 7) -> list:
    """Positions along a game of `plies` plies on `board`, each move picked by a stride through
    the legal list (a varied, reproducible walk), stopping where the game ends."""
    pos = le.Position("startpos", board=board)
    seen = [pos]
    for ply in range(plies):
        if pos.is_over:
            break
        moves = pos.moves()
        pos = pos.play(moves[(ply * stride + 3) % len(moves)])
        seen.append(pos)
    return seen


@pytest.mark.parametrize("board", BOARDS)
def test_moves_and_perft_match_the_command(loa, board):
    for pos in walk(board, 12)[::3]:
        text = str(pos)
        assert le.Position(text) == pos
        assert pos.moves() == loa.out("moves", text).split()
        assert pos.perft(2) == int(loa.out("perft", text, "2").split()[-1])
        divided = [line.split() for line in loa.out("perft", text, "2", "--divide").splitlines()[:-1]]
        assert pos.divide(2) == [(m, int(n)) for m, n in divided]


def test_start_positions_and_their_text(loa):
    assert str(le.Position()) == le.START_TEXT
    assert le.Position().perft(3) == int(loa.out("perft", le.START_TEXT, "3").split()[-1])
    eggs = le.Position("startpos", start="scrambled-eggs")
    assert eggs != le.Position()
    assert le.Position("startpos", board=6).board == "6x6"
    assert le.Position("startpos", board="7x7").side_to_move == "black"


def test_play_matches_apply(loa):
    pos = le.Position()
    moves = [pos.moves()[0]]
    after = pos.play(moves[0])
    moves.append(after.moves()[-1])
    assert str(pos.play(moves)) == loa.out("apply", le.START_TEXT, *moves).strip()
    assert after.side_to_move == "white"
    assert hash(pos.play(moves[0])) == hash(after)


def test_game_end_and_show(loa):
    # Play the first move until the game ends: it ends by a rule the command's `show` names too.
    pos, plies = le.Position("startpos", board="5x5"), 0
    while pos.game_end(plies) is None:
        pos, plies = pos.play(pos.moves()[0]), plies + 1
    end = pos.game_end(plies)
    assert end.reason in {"connected", "both-connected", "no-moves", "ply-cap"}
    assert end.outcome in {"black", "white", "draw"}
    assert (end.winner is None) == (end.outcome == "draw")
    assert pos.show() == loa.out("show", str(pos))
    if end.reason != "ply-cap":
        assert pos.is_over and str(end) in loa.out("show", str(pos))


def test_bad_positions_and_moves_carry_the_commands_words(loa):
    for text in ["", "bbbb", ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. x"]:
        with pytest.raises(ValueError) as e:
            le.Position(text)
        assert str(e.value) in loa.error("moves", text)
    with pytest.raises(ValueError) as e:
        le.Position().play("a1-a9")
    assert str(e.value) in loa.error("apply", le.START_TEXT, "a1-a9")
    with pytest.raises(ValueError) as e:
        le.Position().play(["b1-b3", "b3-b5"])
    assert str(e.value) in loa.error("apply", le.START_TEXT, "b1-b3", "b3-b5")
    with pytest.raises(ValueError, match="board"):
        le.Position("startpos", board="9x9")
    with pytest.raises(ValueError, match="scrambled"):
        le.Position("startpos", board="6x6", start="scrambled-eggs")
    with pytest.raises(ValueError, match="startpos"):
        le.Position(le.START_TEXT, board="8x8")
    with pytest.raises(ValueError, match="depth must be 0 to 20, not 21"):
        le.Position().perft(21)
    with pytest.raises(ValueError, match="moves"):
        le.Position().play(3)
