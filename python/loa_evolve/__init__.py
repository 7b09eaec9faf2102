"""Lines of Action for neuroevolution research, over the loa-evolve engine (Rust).

- ``Position``: positions on any board from 5x5 to 8x8, their moves, perft and game end.
- ``Player``: the project's players from player specs (``aloa:3``, ``random:2``, ``net:3:FILE``).
- ``Network``: a network from a NumPy array of weights and a shape, evaluated on positions.
- ``play_match``: a series of games, with the records ``loa match --out`` writes.
- ``Evaluator``: an ask/tell fitness that judges a population as the master's schemes do, on
  threads or remote ``worker`` processes, for pycma, Nevergrad, EvoTorch and the like.

docs/python.md is the guide.
"""

from __future__ import annotations

from ._native import (
    PLAYER_FORMS,
    START_TEXT,
    Best,
    GameEnd,
    Network,
    Player,
    Position,
    weight_count,
)

__all__ = [
    "PLAYER_FORMS",
    "START_TEXT",
    "Best",
    "GameEnd",
    "Network",
    "Player",
    "Position",
    "weight_count",
]
