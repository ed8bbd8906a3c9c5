#!/usr/bin/env bash
# Makes (once) a venv with the pinned ONNX package (tests/onnx/requirements.txt) and prints the
# directory of the test models it ships, onnx/backend/test/data, as its last line.
# PASSLAB_ONNX_VENV: where the venv lives (default target/onnx-venv). Fails loudly when python3
# or its venv module is missing, or PyPI cannot be reached the first time: nothing is optional.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REQ=$ROOT/tests/onnx/requirements.txt
VENV=${PASSLAB_ONNX_VENV:-$ROOT/target/onnx-venv}
if ! command -v python3 >/dev/null; then
  echo "error: python3 is needed for the ONNX tests (install python3 and python3-venv)" >&2
  exit 1
fi
# A lock, so that test binaries running at once build the venv once.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/.requirements"; then
  echo "== onnx venv: $VENV" >&2
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV"; then
    echo "error: python3 -m venv failed (install python3-venv)" >&2
    exit 1
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ" >&2
  cp "$REQ" "$VENV/.requirements"
fi
"$VENV/bin/python" -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data"))'
