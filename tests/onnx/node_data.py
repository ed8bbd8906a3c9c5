"""Writes the ONNX package's node test cases (onnx.backend.test.case.node: one model per
operator case, with inputs and expected outputs) in the layout of its shipped test data:
OUT/<case>/model.onnx and OUT/<case>/test_data_set_N/{input,output}_J.pb.

The wheel ships the generators of these cases, not their data; this runs them. Usage:
python node_data.py OUT (OUT is replaced; a file OUT/.done marks a complete run).
"""

import os
import shutil
import sys
import warnings

from onnx import numpy_helper
from onnx.backend.test.case import node


def serialize(value, info):
    """One input or output as the bytes ONNX's own generate-data writes for it."""
    t = info.type
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, info.name).SerializeToString()
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, info.name).SerializeToString()
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, info.name).SerializeToString()
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString()
    return numpy_helper.from_array(value, info.name).SerializeToString()


def main():
    out = sys.argv[1]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases()
    for case in cases:
        d = os.path.join(out, case.name)
        os.makedirs(d)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        g = case.model.graph
        for i, (inputs, outputs) in enumerate(case.data_sets):
            s = os.path.join(d, f"test_data_set_{i}")
            os.makedirs(s)
            for kind, values, infos in (("input", inputs, g.input), ("output", outputs, g.output)):
                for j, v in enumerate(values):
                    with open(os.path.join(s, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(serialize(v, infos[j]))
    with open(os.path.join(out, ".done"), "w") as f:
        f.write(f"{len(cases)}\n")


if __name__ == "__main__":
    main()
