"""Shared fixtures: the Rust binaries the package is compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary(name: str) -> pathlib.Path:
    """A binary of the workspace: from LOA_BIN_DIR (scripts/test.sh sets it, and then a missing
    binary is a failure), else target/release (missing: the tests that need it are skipped)."""
    given = os.environ.get("LOA_BIN_DIR")
    path = pathlib.Path(given or ROOT / "target" / "release") / name
    if not path.is_file():
        message = f"{path} is not built (cargo build --release)"
        if given:
            pytest.fail(message)
        pytest.skip(message)
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


@pytest.fixture(scope="session")
def master_bin() -> pathlib.Path:
    return binary("master")
