#!/usr/bin/env bash
# Runs the Jupyter tests: a venv with the pinned Jupyter clients (cached under target/), the
# kernel binary, its kernelspec installed into a temporary JUPYTER_PATH, then pytest.
#   tests/jupyter/run.sh [pytest args]
#   tests/jupyter/run.sh --bench      # the latency benchmark instead (ours vs ipykernel)
# PASSLAB_KERNEL_BIN: use this kernel binary instead of building one (the cargo integration
# test passes the one cargo built). PASSLAB_JUPYTER_VENV: where the venv lives.
# Fails loudly when python3 or its venv module is missing: nothing here is optional.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
REQ=tests/jupyter/requirements.txt
VENV=${PASSLAB_JUPYTER_VENV:-$ROOT/target/jupyter-venv}

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

BIN=${PASSLAB_KERNEL_BIN:-}
if [ -z "$BIN" ]; then
  cargo build --quiet -p passlab-kernel
  BIN=$ROOT/target/debug/passlab-kernel
fi

# Everything Jupyter reads or writes goes to a temporary directory: the kernelspec, connection
# files, config. Nothing in the user's home is touched.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/passlab-jupyter.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$BIN" install --prefix "$TMP/prefix" >/dev/null
export JUPYTER_PATH="$TMP/prefix/share/jupyter"
export JUPYTER_DATA_DIR="$TMP/data" JUPYTER_RUNTIME_DIR="$TMP/runtime"
export JUPYTER_CONFIG_DIR="$TMP/config" IPYTHONDIR="$TMP/ipython"
export JUPYTER_PLATFORM_DIRS=1 PYDEVD_DISABLE_FILE_VALIDATION=1
export NO_COLOR=

cd tests/jupyter
if [ "${1:-}" = "--bench" ]; then
  exec "$VENV/bin/python" bench_latency.py
fi
exec "$VENV/bin/python" -m pytest -p no:cacheprovider -q "$@"
