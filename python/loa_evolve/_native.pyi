"""Type stubs of loa_evolve._native, the Rust half of loa_evolve (see the docstrings there)."""

from os import PathLike
from typing import List, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

START_TEXT: str
"""The standard 8x8 start position's text."""
PLAYER_FORMS: str
"""The player spec forms ``Player`` and ``play_match`` take."""

_Board = Union[str, int]

@final
class GameEnd:
    """How a game ended."""

    outcome: str
    """``"black"``, ``"white"`` or ``"draw"``."""
    reason: str
    """``"connected"``, ``"both-connected"``, ``"no-moves"`` or ``"ply-cap"``."""
    @property
    def winner(self) -> Optional[str]:
        """The winner's colour, or None for a draw."""

@final
class Position:
    """A position on any board from 5x5 to 8x8: ``Position()`` (the 8x8 start),
    ``Position("startpos", board="6x6", start="standard")`` or ``Position(text)``."""

    def __init__(self, text: str = "startpos", *, board: Optional[_Board] = None, start: Optional[str] = None) -> None: ...
    def moves(self) -> List[str]:
        """The legal moves in canonical order, as ``loa moves`` lists them."""
    def play(self, moves: Union[str, Sequence[str]]) -> "Position":
        """The position after the moves, each checked as ``loa apply`` checks it."""
    def perft(self, depth: int) -> int:
        """Leaves of the move tree ``depth`` (0 to 20) plies deep. Releases the GIL."""
    def divide(self, depth: int) -> List[Tuple[str, int]]:
        """Leaves below each root move, in canonical order. Releases the GIL."""
    def game_end(self, plies_played: int = 0) -> Optional[GameEnd]:
        """How the game has ended here (default rules, ply cap 100), or None."""
    @property
    def is_over(self) -> bool:
        """Whether the game is over in this position (ply cap aside)."""
    @property
    def side_to_move(self) -> str:
        """``"black"`` or ``"white"``."""
    @property
    def board(self) -> str:
        """The board, e.g. ``"8x8"``."""
    def show(self) -> str:
        """What ``loa show`` prints."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Best:
    """A player's choice: the move (None: no legal move), its value and the nodes searched."""

    @property
    def move(self) -> Optional[str]: ...
    value: float
    nodes: int

@final
class Player:
    """A player from a spec (``PLAYER_FORMS``), for games on ``board``."""

    def __init__(self, spec: str, *, board: Optional[_Board] = None) -> None: ...
    @staticmethod
    def from_network(network: "Network", depth: int) -> "Player":
        """The network searching ``depth`` plies (1 to 12)."""
    def best(self, position: Position, *, plies_played: int = 0, seed: int = 0) -> Best:
        """The move chosen in ``position``, as ``loa best`` prints it. Releases the GIL."""
    @property
    def spec(self) -> str: ...
    @property
    def board(self) -> str: ...

@final
class Network:
    """A network: a shape and its weights (a 1-D float32 or float64 array, or a list)."""

    def __init__(self, weights: Union[npt.ArrayLike, Sequence[float]], shape: str = "board-nonad-100-20-1") -> None: ...
    @staticmethod
    def read(path: Union[str, PathLike[str]]) -> "Network":
        """The network in a chromosome JSON file."""
    def write(self, path: Union[str, PathLike[str]]) -> None:
        """Writes a chromosome JSON file (for ``net:D:FILE``)."""
    def evaluate(self, position: Position) -> float:
        """The output for the side to move, as ``loa eval`` prints it."""
    def evaluate_many(self, positions: Sequence[Position]) -> npt.NDArray[np.float32]:
        """``evaluate`` over many positions. Releases the GIL."""
    @property
    def weights(self) -> npt.NDArray[np.float32]:
        """A copy of the weights."""
    @property
    def shape(self) -> str: ...
    @property
    def board(self) -> str: ...
    @property
    def id(self) -> str:
        """The chromosome's content address."""
    def __len__(self) -> int: ...

def weight_count(shape: str) -> int:
    """The number of weights of the shape ``shape``."""

def play_match(
    black: str,
    white: str,
    *,
    games: int = 2,
    seed: int = 0,
    opening_plies: int = 0,
    board: Optional[_Board] = None,
    start: str = "standard",
    threads: Optional[int] = None,
    out: Optional[str] = None,
) -> str:
    """The match file's text ``loa match --out`` writes for the same arguments; Ctrl-C stops it
    after the games in hand and raises KeyboardInterrupt."""

@final
class Evaluator:
    """An ask/tell fitness: each row of a population judged as the master's schemes judge."""

    def __init__(
        self,
        shape: str = "board-nonad-100-20-1",
        *,
        opponents: int = 4,
        fixed_opponents: Sequence[str] = (),
        fixed_matches: int = 1,
        opening_plies: int = 0,
        fitness: str = "points",
        groups: int = 0,
        ladder: Sequence[str] = (),
        promote_at: float = 0.5,
        seed: int = 1,
        depth: int = 1,
        board: Optional[_Board] = None,
        start: str = "standard",
        threads: Optional[int] = None,
        listen: Optional[str] = None,
        token: Optional[str] = None,
        verify: str = "0.03",
        symmetry: str = "none",
        tls_cert: Union[str, "PathLike[str]", None] = None,
        tls_key: Union[str, "PathLike[str]", None] = None,
    ) -> None: ...
    def evaluate(self, population: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """Fitness per row (higher is fitter). Releases the GIL; Ctrl-C raises KeyboardInterrupt."""
    def network(self, row: npt.ArrayLike) -> Network:
        """The network a row stands for (tied weights expanded with ``symmetry``)."""
    @property
    def calls(self) -> int:
        """Calls that returned fitness: the next is generation ``calls + 1``."""
    @property
    def dimension(self) -> int:
        """Values per row: the shape's weights, or the tying's free parameters."""
    @property
    def shape(self) -> str: ...
    @property
    def address(self) -> Optional[str]:
        """Where remote workers join (``worker --master http://ADDRESS``), if listening."""
    @property
    def rung(self) -> int: ...
    @property
    def last_games(self) -> int:
        """Games the last call played."""
    @property
    def last_plies(self) -> int:
        """Plies of the last call's games."""
    @property
    def workers(self) -> int: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Evaluator": ...
    def __exit__(self, *args: object) -> None: ...
