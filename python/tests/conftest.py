"""Shared fixtures: the Rust binaries the package is compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary(name: str) -> pathlib.Path:
    """A binary of the workspace: from LOA_BIN_DIR (scripts/test.sh sets it), else target/release."""
    path = pathlib.Path(os.environ.get("LOA_BIN_DIR", ROOT / "target" / "release")) / name
    if not path.is_file():
        pytest.skip(f"{path} is not built (cargo build --release)")
    return path


class Loa:
    """Runs the `loa` command."""

    def __init__(self, path: pathlib.Path):
        self.path = path

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([str(self.path), *args], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"loa {' '.join(args)} failed: {done.stderr}")
        return done

    def out(self, *args: str) -> str:
        return self.run(*args).stdout

    def error(self, *args: str) -> str:
        done = self.run(*args, check=False)
        assert done.returncode != 0, f"loa {' '.join(args)} succeeded"
        return done.stderr


@pytest.fixture(scope="session")
def loa() -> Loa:
    return Loa(binary("loa"))


@pytest.fixture(scope="session")
def worker_bin() -> pathlib.Path:
    return binary("worker")
