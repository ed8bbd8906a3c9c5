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
DATA=$("$VENV/bin/python" -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data"))')
# For the notebooks (the command language has no environment): target/onnx-data links to the
# package's data, and target/onnx-light-inputs holds each light model's input as ONNX's own
# backend test runner makes it (Runner.generate_dummy_data: arange(n) / n), which is the input
# its expected output light_*_output_0.pb was computed from.
LINKS=$(dirname "$VENV")
ln -sfn "$DATA" "$LINKS/onnx-data"
if [ ! -f "$LINKS/onnx-light-inputs/.done" ] || [ "$LINKS/onnx-light-inputs/.done" -ot "$VENV/.requirements" ]; then
  "$VENV/bin/python" - "$DATA/light" "$LINKS/onnx-light-inputs" <<'PY'
import glob, os, sys
import onnx
from onnx import numpy_helper
from onnx.backend.test.runner import Runner
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for path in sorted(glob.glob(os.path.join(src, "light_*.onnx"))):
    m = onnx.load(path)
    inits = {t.name for t in m.graph.initializer}
    x = next(i for i in m.graph.input if i.name not in inits)
    t = numpy_helper.from_array(Runner.generate_dummy_data(x), x.name)
    name = os.path.basename(path)[: -len(".onnx")]
    with open(os.path.join(out, name + "_input_0.pb"), "wb") as f:
        f.write(t.SerializeToString())
open(os.path.join(out, ".done"), "w").close()
PY
fi
echo "$DATA"
