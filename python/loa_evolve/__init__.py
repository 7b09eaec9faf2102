"""Lines of Action for neuroevolution research, over the loa-evolve engine (Rust).

- ``Position``: positions on any board from 5x5 to 8x8, their moves, perft and game end.
- ``Player``: the project's players from player specs (``aloa:3``, ``random:2``, ``net:3:FILE``).
- ``Network``: a network from a NumPy array of weights and a shape, evaluated on positions.
- ``play_match``: a series of games, with the records ``loa match --out`` writes.
- ``read_run``: a run directory's generations, epochs and validation lines as DataFrames.
- ``Evaluator``: an ask/tell fitness that judges a population as the master's schemes do, on
  threads or remote ``worker`` processes, for pycma, Nevergrad, EvoTorch and the like.

docs/python.md is the guide.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from ._native import (
    PLAYER_FORMS,
    START_TEXT,
    Best,
    Evaluator,
    GameEnd,
    Network,
    Player,
    Position,
    weight_count,
)
from . import _native
from .runs import Run, read_run

__all__ = [
    "PLAYER_FORMS",
    "START_TEXT",
    "Best",
    "Evaluator",
    "GameEnd",
    "MatchResult",
    "Network",
    "Player",
    "Position",
    "Run",
    "play_match",
    "read_run",
    "weight_count",
]


@dataclass(frozen=True)
class MatchResult:
    """A series' records: ``games`` (one dict a game, in pair order), ``summary`` (the totals)
    and ``jsonl``, the text ``loa match --out`` writes for the same arguments, byte for byte."""

    jsonl: str
    games: List[Dict[str, Any]] = field(repr=False)
    summary: Dict[str, Any]

    @classmethod
    def from_jsonl(cls, text: str) -> "MatchResult":
        """The result whose match file is ``text``."""
        lines = [json.loads(line) for line in text.splitlines() if line]
        games = [line for line in lines if line.get("kind") == "game"]
        summaries = [line for line in lines if line.get("kind") == "summary"]
        if len(summaries) != 1:
            raise ValueError(f"a match file has one line of totals, this one {len(summaries)}")
        return cls(jsonl=text, games=games, summary=summaries[0])

    def write(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the match file (what ``analysis matches`` reads)."""
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.jsonl)


def play_match(
    black: str,
    white: str,
    *,
    games: int = 2,
    seed: int = 0,
    opening_plies: int = 0,
    board: Union[str, int, None] = None,
    start: str = "standard",
    threads: Optional[int] = None,
    out: Union[str, "os.PathLike[str]", None] = None,
) -> MatchResult:
    """Plays ``games`` games (even: two-game matches) between the players the specs ``black``
    and ``white`` name, as ``loa match --black BLACK --white WHITE`` does with the same
    arguments: ``black`` has Black in the first game of every pair, each pair starts from the
    start position or a random opening of ``opening_plies`` plies drawn from ``seed``, on
    ``threads`` threads (every core if None; the games do not depend on it). Writes the match
    file to ``out`` if given. Releases the GIL while playing; Ctrl-C stops it after the games in
    hand and raises ``KeyboardInterrupt`` (``out`` is then not written).
    """
    text = _native.play_match(
        black,
        white,
        games=games,
        seed=seed,
        opening_plies=opening_plies,
        board=board,
        start=start,
        threads=threads,
        out=None if out is None else os.fspath(out),
    )
    return MatchResult.from_jsonl(text)
