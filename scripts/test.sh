#!/usr/bin/env bash
# The README's test command, which CI runs: the Rust tests, then the Python package built into
# a virtual environment of its own (target/venv, packages from the registry) and its tests,
# which compare it with the binaries the Rust tests built. Needs the Rust toolchain and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release
venv=target/venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.16,<2" "numpy>=1.21" "pytest>=7" "pandas>=1.5" "cma>=3" "matplotlib>=3.5"
# Into the workspace's target/, so the crates the Rust tests compiled are not compiled again
# where their features agree; maturin from the venv rather than a fresh isolated download.
# (maturin's build backend runs the `maturin` it finds on PATH.)
PATH="$PWD/$venv/bin:$PATH" CARGO_TARGET_DIR="$PWD/target" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-build-isolation --force-reinstall --no-deps ./python
# Compared with the `loa` and `worker` binaries the Rust tests built.
LOA_BIN_DIR="$PWD/target/release" "$venv/bin/python" -m pytest -q python/tests
