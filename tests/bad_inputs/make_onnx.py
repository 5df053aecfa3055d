#!/usr/bin/env python3
"""Writes a small ONNX model loader (model.onnx + loader.yaml) with one defect,
for the bad-input catalogue's ONNX rows.

make_onnx.py FOLDER KIND, KIND one of:
  ok                a Relu(x + w) model, nothing wrong
  truncated         the same model file cut in half
  escaping_data     its weight's external data at ../outside.bin
  unsupported_op    a TopK node (no converter)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(kind):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(1, 4), "w")
    if kind == "escaping_data":
        w.ClearField("raw_data")
        w.data_location = TensorProto.EXTERNAL
        for key, value in (("location", "../outside.bin"), ("offset", "0"), ("length", "16")):
            entry = w.external_data.add()
            entry.key, entry.value = key, value
    nodes = [helper.make_node("Add", ["x", "w"], ["s"], name="add0")]
    if kind == "unsupported_op":
        k = numpy_helper.from_array(np.array([2], dtype=np.int64), "k")
        nodes.append(helper.make_node("TopK", ["s", "k"], ["y", "idx"], name="topk0"))
        inits = [w, k]
    else:
        nodes.append(helper.make_node("Relu", ["s"], ["y"], name="relu0"))
        inits = [w]
    graph = helper.make_graph(nodes, "m", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    folder, kind = sys.argv[1], sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    data = model(kind).SerializeToString()
    if kind == "truncated":
        data = data[: len(data) // 2]
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(data)
    with open(os.path.join(folder, "loader.yaml"), "w") as f:
        f.write("info: {model: m}\nvariants:\n  v:\n    onnx: model.onnx\n"
                "    inputs:\n      x: {shape: [1, 4], dtype: f32}\n")


if __name__ == "__main__":
    main()
