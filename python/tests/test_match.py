"""play_match against `loa match --out`, byte for byte."""

import pytest

import loa_evolve as le

CASES = [
    ("random:1", "aloa:1", dict(games=4, seed=3)),
    ("aloa:1", "randomann:1", dict(games=6, seed=7, opening_plies=4, threads=2)),
    ("random:2:5", "aloa-normal:1", dict(games=2, seed=1, opening_plies=3, board="6x6")),
    ("aloa:1", "random:1", dict(games=4, seed=2, board=5, opening_plies=2, threads=1)),
    ("random:1", "aloa:1", dict(games=2, seed=9, start="scrambled-eggs")),
]


def flags(games=2, seed=0, opening_plies=0, board=None, start="standard", threads=None):
    out = ["--games", str(games), "--seed", str(seed), "--opening-plies", str(opening_plies), "--start", start]
    if board is not None:
        out += ["--board", str(board)]
    if threads is not None:
        out += ["--threads", str(threads)]
    return out


@pytest.mark.parametrize("black,white,kwargs", CASES)
def test_play_match_writes_what_loa_match_writes(loa, tmp_path, black, white, kwargs):
    expected = tmp_path / "loa.jsonl"
    loa.out("match", "--black", black, "--white", white, *flags(**kwargs), "--out", str(expected))
    ours = tmp_path / "ours.jsonl"
    result = le.play_match(black, white, out=ours, **kwargs)
    assert ours.read_bytes() == expected.read_bytes()
    assert result.jsonl.encode() == expected.read_bytes()
    assert len(result.games) == kwargs["games"]
    assert result.summary["games"] == kwargs["games"]
    copy = tmp_path / "copy.jsonl"
    result.write(copy)
    assert copy.read_bytes() == expected.read_bytes()


def test_the_thread_count_changes_nothing():
    one = le.play_match("random:1", "random:1:3", games=8, seed=5, opening_plies=6, threads=1)
    two = le.play_match("random:1", "random:1:3", games=8, seed=5, opening_plies=6, threads=2)
    assert one == two


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(games=3),
        dict(games=0),
        dict(opening_plies=41),
        dict(board="6x6", opening_plies=13),
        dict(board="6x6", start="scrambled-eggs"),
        dict(start="sideways"),
    ],
)
def test_bad_arguments_carry_the_commands_words(loa, kwargs):
    with pytest.raises(ValueError) as e:
        le.play_match("aloa:1", "aloa:1", **kwargs)
    assert str(e.value) in loa.error("match", "--black", "aloa:1", "--white", "aloa:1", *flags(**kwargs))


def test_bad_players_and_files(loa, tmp_path):
    for black, white in [("aloa:x", "aloa:1"), ("aloa:1", "net:1:/no/such.json")]:
        with pytest.raises(ValueError) as e:
            le.play_match(black, white)
        assert str(e.value) in loa.error("match", "--black", black, "--white", white)
    missing = tmp_path / "no" / "such" / "out.jsonl"
    with pytest.raises(ValueError) as e:
        le.play_match("aloa:1", "aloa:1", out=missing)
    assert str(e.value) in loa.error("match", "--black", "aloa:1", "--white", "aloa:1", "--out", str(missing))
    with pytest.raises(ValueError, match="threads must be at least 1"):
        le.play_match("aloa:1", "aloa:1", threads=0)
