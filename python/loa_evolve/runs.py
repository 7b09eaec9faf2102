"""A run directory's records as tables: what ``master run`` writes, for every method (the
genetic algorithm's schemes, evolution strategies, CMA-ES, TD(λ) and population-based training
write the same three files)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Union

Table = Any  # a pandas DataFrame, or a list of dicts where pandas is missing

FILES = {"generations": "generations.jsonl", "epochs": "epochs.jsonl", "validation": "validation.jsonl"}


@dataclass(frozen=True)
class Run:
    """A run's records: one row per line of ``generations.jsonl``, ``epochs.jsonl`` and
    ``validation.jsonl`` (empty where the run has no such file), nested fields flattened into
    columns named by their path (``fitness.mean``). Lists (an epoch's benchmark ``entries``, a
    generation's ``tournaments``) stay whole in their column."""

    generations: Table
    epochs: Table
    validation: Table


def flatten(record: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    """``record`` with nested objects spread into ``outer.inner`` keys, in the record's order."""
    flat: Dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def read_lines(path: Union[str, "os.PathLike[str]"]) -> List[Dict[str, Any]]:
    """The records of a JSON-lines file, each flattened. A torn last line (a run killed while
    writing it, no newline yet) is left out, as the master's reader leaves it; any other bad
    line is a ValueError naming the file and line."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(flatten(json.loads(line)))
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)}: line {number}: {e}") from None
    if torn.strip():
        try:
            rows.append(flatten(json.loads(torn)))
        except ValueError:
            pass
    return rows


def read_run(directory: Union[str, "os.PathLike[str]"], *, pandas: Union[bool, None] = None) -> Run:
    """Reads the run in ``directory``: its generations, epochs and validation records as pandas
    DataFrames (``pandas=None``: if pandas imports; ``False``: lists of dicts). A directory
    without ``generations.jsonl`` or ``epochs.jsonl`` is no run: ValueError."""
    if not os.path.isdir(directory):
        raise ValueError(f"{os.fspath(directory)}: no such run directory")
    present = [name for name, file in FILES.items() if os.path.isfile(os.path.join(directory, file))]
    if "generations" not in present and "epochs" not in present:
        raise ValueError(f"{os.fspath(directory)}: not a run directory (no generations.jsonl or epochs.jsonl)")
    tables = {
        name: read_lines(os.path.join(directory, file)) if name in present else [] for name, file in FILES.items()
    }
    if pandas is not False:
        try:
            import pandas as pd
        except ImportError:
            if pandas:
                raise
        else:
            return Run(**{name: pd.DataFrame(rows) for name, rows in tables.items()})
    return Run(**tables)
