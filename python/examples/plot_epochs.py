"""Reading a run and plotting its epochs: the benchmark score of the population, per epoch.

    python examples/plot_epochs.py runs/quick epochs.png

Works on any run directory ``master run`` writes (every method writes epochs.jsonl); a run with
a ``[validation]`` section gets a second panel: its held-out win rate against each opponent.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402

import loa_evolve as le  # noqa: E402


def plot(run_dir: str, out: str) -> List[str]:
    """Draws `run_dir`'s epochs into the image `out`; returns the columns drawn."""
    run = le.read_run(run_dir)
    epochs = run.epochs
    drawn = ["best", "mean", "median"]
    panels = 2 if len(run.validation) else 1
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4), squeeze=False)
    ax = axes[0][0]
    for column in drawn:
        ax.plot(epochs["epoch"], epochs[column], marker="o", label=column)
    ax.set_xlabel("epoch")
    ax.set_ylabel("benchmark score (of 398)")
    ax.set_title(run_dir)
    ax.legend()
    if panels == 2:
        v, right = run.validation, axes[0][1]
        for opponent, lines in v.groupby("opponent"):
            right.plot(lines["epoch"], lines["win_rate"], marker="o", label=opponent)
            right.fill_between(lines["epoch"], lines["win_rate_low"], lines["win_rate_high"], alpha=0.2)
        right.set_xlabel("epoch")
        right.set_ylabel("held-out win rate (95 % Wilson interval)")
        right.legend()
        drawn.append("win_rate")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return drawn


def main(argv: Optional[List[str]] = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.exit("usage: plot_epochs.py RUN_DIR OUT.png")
    print("drew", ", ".join(plot(*args)), "into", args[1])


if __name__ == "__main__":
    main()
