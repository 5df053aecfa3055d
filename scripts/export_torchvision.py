#!/usr/bin/python3
"""Exports torchvision architectures (random initialisation, seed 0) to ONNX
with PyTorch's CPU output, as ONNX loaders of a models root:

  OUT/<arch>/image_classification/onnx/{loader.yaml, model.onnx, input_0.pb, output_0.pb}

output_0.pb is PyTorch's eval-mode output for input_0.pb (what
tests/frontends/onnx_zoo_test.cpp compares the CPU reference with). Each
architecture is exported at another opset, so the importer sees the forms
real exports use. An existing export is kept (delete OUT to redo it).

usage: scripts/export_torchvision.py OUT [ARCH ...]
Debian packages: python3-torch python3-torchvision python3-onnx (scripts/setup).
"""
import os
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torchvision

# arch -> (opset, input shape)
ARCHS = {
    "squeezenet1_1": (9, (1, 3, 224, 224)),
    "mobilenet_v2": (11, (1, 3, 224, 224)),
    "resnet18": (14, (1, 3, 224, 224)),
    "vit_b_16": (17, (1, 3, 224, 224)),
}

LOADER = """# torchvision {arch} (random initialisation, seed 0) exported at opset {opset}
# by scripts/export_torchvision.py; input_0.pb is the sample input.
info: {{model: {arch}, group: generality, task: cv_image_cls, source: torchvision}}
variants:
  {arch}:
    onnx: model.onnx
    dims: {{batch: {batch}}}
    inputs:
      input: {{file: input_0.pb}}
"""


def calibrate(model, shape):
    """Gives a randomly initialised model outputs of a realistic scale: batch
    norm statistics measured on random inputs (eval mode would otherwise use
    mean 0, variance 1, and activations vanish), and zero-initialised
    matrices (ViT's head) drawn from N(0, 0.02)."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average
    model.train()
    with torch.no_grad():
        model(torch.randn(8, *shape[1:], generator=torch.Generator().manual_seed(2)))
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0, 0.02, generator=torch.Generator().manual_seed(3))
    model.eval()


def export(out_root, arch):
    opset, shape = ARCHS[arch]
    folder = os.path.join(out_root, arch, "image_classification", "onnx")
    if os.path.exists(os.path.join(folder, "loader.yaml")):
        return
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    model = getattr(torchvision.models, arch)(weights=None)
    calibrate(model, shape)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    start = time.time()
    with torch.no_grad():
        y = model(x)
    # With gradients on: under no_grad, eval-mode attention takes a fused path
    # (aten::_native_multi_head_attention) that has no ONNX export.
    torch.onnx.export(model, x, os.path.join(folder, "model.onnx"), opset_version=opset,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    for name, t in (("input_0.pb", x), ("output_0.pb", y)):
        proto = onnx.numpy_helper.from_array(t.numpy().astype(np.float32), "input" if name == "input_0.pb" else "logits")
        with open(os.path.join(folder, name), "wb") as f:
            f.write(proto.SerializeToString())
    with open(os.path.join(folder, "loader.yaml"), "w") as f:
        f.write(LOADER.format(arch=arch, opset=opset, batch=shape[0]))
    print(f"{arch}: opset {opset}, exported in {time.time() - start:.1f}s", flush=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    torch.set_num_threads(2)
    for arch in sys.argv[2:] or ARCHS:
        export(sys.argv[1], arch)


if __name__ == "__main__":
    main()
