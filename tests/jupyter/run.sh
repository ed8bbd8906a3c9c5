#!/usr/bin/env bash
# Runs the Jupyter tests: a venv with the pinned Jupyter clients (cached under target/), the
# kernel binary, its kernelspec installed into a temporary JUPYTER_PATH, then pytest.
#   tests/jupyter/run.sh [pytest args]
#   tests/jupyter/run.sh --bench      # the latency benchmark instead (ours vs ipykernel)
#   tests/jupyter/run.sh --evcxr      # the Rust notebooks in evcxr's kernel (evcxr_notebooks.py)
#   tests/jupyter/run.sh --update     # run the notebook tests and write each passing notebook's
#                                     # fresh outputs back into notebooks/ (passlab kernel only)
# PASSLAB_KERNEL_BIN: use this kernel binary instead of building one (the cargo integration
# test passes the one cargo built). PASSLAB_JUPYTER_VENV: where the venv lives.
# PASSLAB_EVCXR_JUPYTER: the evcxr_jupyter binary (default: the one on PATH or in ~/.cargo/bin).
# Fails loudly when python3 or its venv module is missing, or with --evcxr when evcxr_jupyter
# is: nothing here is optional.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
REQ=tests/jupyter/requirements.txt
VENV=${PASSLAB_JUPYTER_VENV:-$ROOT/target/jupyter-venv}
MODE=${1:-}
if [ "$MODE" = "--update" ]; then
  shift
  export PASSLAB_UPDATE_NOTEBOOKS=1
  set -- test_notebooks.py "$@"
fi

EVCXR=
if [ "$MODE" = "--evcxr" ]; then
  shift
  EVCXR=${PASSLAB_EVCXR_JUPYTER:-$(command -v evcxr_jupyter || true)}
  [ -n "$EVCXR" ] || EVCXR=${CARGO_HOME:-$HOME/.cargo}/bin/evcxr_jupyter
  if [ ! -x "$EVCXR" ]; then
    echo "error: evcxr_jupyter is needed for the Rust notebooks: cargo install evcxr_jupyter --locked" >&2
    echo "       (about 16 minutes on 2 cores; .ci/run installs it when missing)" >&2
    exit 1
  fi
fi

if ! command -v python3 >/dev/null; then
  echo "error: python3 is needed for the Jupyter tests (install python3 and python3-venv)" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/.requirements"; then
  echo "== jupyter venv: $VENV"
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV"; then
    echo "error: python3 -m venv failed (install python3-venv)" >&2
    exit 1
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$VENV/.requirements"
fi

# Everything Jupyter reads or writes goes to a temporary directory: the kernelspecs, connection
# files, config. Nothing in the user's home is touched (no `exec` below, so the trap runs).
TMP=$(mktemp -d "${TMPDIR:-/tmp}/passlab-jupyter.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export JUPYTER_PATH="$TMP/prefix/share/jupyter"
export JUPYTER_DATA_DIR="$TMP/data" JUPYTER_RUNTIME_DIR="$TMP/runtime"
export JUPYTER_CONFIG_DIR="$TMP/config" IPYTHONDIR="$TMP/ipython"
export JUPYTER_PLATFORM_DIRS=1 PYDEVD_DISABLE_FILE_VALIDATION=1
export NO_COLOR=

if [ -n "$EVCXR" ]; then
  # evcxr_jupyter --install writes $JUPYTER_PATH/kernels/rust (kernelspec name `rust`).
  "$EVCXR" --install >/dev/null
  export PASSLAB_TEST_KERNELS=rust
  cd tests/jupyter
  "$VENV/bin/python" -m pytest -p no:cacheprovider -q -s evcxr_notebooks.py "$@"
  exit 0
fi

BIN=${PASSLAB_KERNEL_BIN:-}
if [ -z "$BIN" ]; then
  cargo build --quiet -p passlab-kernel
  BIN=$ROOT/target/debug/passlab-kernel
fi
"$BIN" install --prefix "$TMP/prefix" >/dev/null

cd tests/jupyter
if [ "$MODE" = "--bench" ]; then
  "$VENV/bin/python" bench_latency.py
  exit 0
fi
"$VENV/bin/python" -m pytest -p no:cacheprovider -q "$@"
