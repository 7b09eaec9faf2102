"""read_run on runs the master writes, and the plotting example."""

import importlib.util
import json
import pathlib
import subprocess

import pytest

import loa_evolve as le

GA = """
seed = 1
epochs = 2
population = 4
generations_per_epoch = 2
network_depth = 1
[benchmark]
reference = "random"
depth = 1
"""

TD = """
seed = 1
population = 1
epochs = 2
generations_per_epoch = 2
network_depth = 1
[benchmark]
depth = 1
[network]
board_side = 5
inputs = ["board"]
hidden = [4]
[selection.scheme.td]
batch = 2
opening_plies = 2
[validation]
opponents = ["random:1"]
matches = 2
every = 1
seed = 3
opening_plies = 2
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import binary

    master = binary("master")
    made = {}
    for name, config in [("ga", GA), ("td", TD)]:
        root = tmp_path_factory.mktemp(name)
        (root / "run.toml").write_text(config)
        done = subprocess.run(
            [str(master), "run", "--config", str(root / "run.toml"), "--out", str(root / "run"), "--threads", "1", "--quiet"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        made[name] = root / "run"
    return made


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("name", ["ga", "td"])
def test_read_run_has_every_line_flat(runs, name):
    run_dir = runs[name]
    run = le.read_run(run_dir)
    plain = le.read_run(run_dir, pandas=False)
    for table, file in [("generations", "generations.jsonl"), ("epochs", "epochs.jsonl"), ("validation", "validation.jsonl")]:
        path = run_dir / file
        records = lines(path) if path.exists() else []
        rows = getattr(plain, table)
        assert len(rows) == len(records) == len(getattr(run, table))
        for row, record in zip(rows, records):
            assert not any(isinstance(v, dict) for v in row.values())
            for key, value in record.items():
                if isinstance(value, dict):
                    for inner, v in value.items():
                        if not isinstance(v, dict):
                            assert row[f"{key}.{inner}"] == v
                else:
                    assert row[key] == value
    assert list(run.epochs["epoch"]) == [r["epoch"] for r in lines(run_dir / "epochs.jsonl")]
    assert len(run.generations) == 4
    if name == "td":
        assert len(run.validation) > 0


def test_a_torn_last_line_is_left_out_and_a_bad_one_named(runs, tmp_path):
    run_dir = tmp_path / "copy"
    run_dir.mkdir()
    text = (runs["ga"] / "generations.jsonl").read_text()
    (run_dir / "generations.jsonl").write_text(text + '{"generation": 5, "ep')
    assert len(le.read_run(run_dir, pandas=False).generations) == len(text.splitlines())
    (run_dir / "generations.jsonl").write_text("nonsense\n" + text)
    with pytest.raises(ValueError, match="generations.jsonl: line 1"):
        le.read_run(run_dir)
    with pytest.raises(ValueError, match="not a run directory"):
        le.read_run(tmp_path)
    with pytest.raises(ValueError, match="no such run directory"):
        le.read_run(tmp_path / "nowhere")


def test_plotting_example(runs, tmp_path):
    spec = importlib.util.spec_from_file_location("plot_epochs", pathlib.Path(__file__).resolve().parents[1] / "examples" / "plot_epochs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import matplotlib.image

    for name in ["ga", "td"]:
        out = tmp_path / f"{name}.png"
        drawn = module.plot(str(runs[name]), str(out))
        image = matplotlib.image.imread(out)
        assert image.shape[0] > 100 and image.shape[1] > 100
        assert drawn == ["best", "mean", "median"] + (["win_rate"] if name == "td" else [])
