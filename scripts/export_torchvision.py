#!/usr/bin/python3
"""Exports torchvision architectures, and a BERT-style encoder built from
torch.nn layers, (random initialisation, seed 0) to ONNX with PyTorch's CPU
output, as ONNX loaders of a models root:

  OUT/<arch>/<task>/onnx/{loader.yaml, model.onnx, input_0.pb, output_0.pb}

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

class TextEncoder(torch.nn.Module):
    """A BERT-style masked-LM encoder (pre-norm, GELU): token embedding plus
    learned positions, 2 layers of width 64 with 4 heads, vocabulary head."""

    def __init__(self, vocab=1000, width=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Parameter(torch.randn(1, seq, width) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, activation="gelu",
                                                 batch_first=True, norm_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, ids):
        return self.head(self.enc(self.tok(ids) + self.pos[:, : ids.shape[1]]))


def image(shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(1))


def tokens(shape):
    return torch.randint(0, 1000, shape, generator=torch.Generator().manual_seed(1))


# arch -> (opset, task, model factory, sample input, source)
ARCHS = {
    "squeezenet1_1": (9, "image_classification", torchvision.models.squeezenet1_1, image((1, 3, 224, 224)), "torchvision"),
    "mobilenet_v2": (11, "image_classification", torchvision.models.mobilenet_v2, image((1, 3, 224, 224)), "torchvision"),
    "resnet18": (14, "image_classification", torchvision.models.resnet18, image((1, 3, 224, 224)), "torchvision"),
    "vit_b_16": (17, "image_classification", torchvision.models.vit_b_16, image((1, 3, 224, 224)), "torchvision"),
    "text_encoder": (17, "masked_lm", lambda weights: TextEncoder(), tokens((1, 16)), "torch.nn"),
}
TASKS = {"image_classification": "cv_image_cls", "masked_lm": "nlp_masked_lm"}

LOADER = """# {source} {arch} (random initialisation, seed 0) exported at opset {opset}
# by scripts/export_torchvision.py; input_0.pb is the sample input.
info: {{model: {arch}, group: generality, task: {task}, source: {source}}}
variants:
  {arch}:
    onnx: model.onnx
    dims: {dims}
    inputs:
      input: {{file: input_0.pb}}
"""


def calibrate(model, x):
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
        model(torch.randn(8, *x.shape[1:], generator=torch.Generator().manual_seed(2)) if x.is_floating_point() else x)
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0, 0.02, generator=torch.Generator().manual_seed(3))
    model.eval()


def export(out_root, arch):
    opset, task, factory, x, source = ARCHS[arch]
    folder = os.path.join(out_root, arch, task, "onnx")
    if os.path.exists(os.path.join(folder, "loader.yaml")):
        return
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    model = factory(weights=None)
    calibrate(model, x)
    dynamic = {0: "batch"} if x.dim() == 4 else {0: "batch", 1: "seq"}
    start = time.time()
    with torch.no_grad():
        y = model(x)
    # With gradients on: under no_grad, eval-mode attention takes a fused path
    # (aten::_native_multi_head_attention) that has no ONNX export.
    torch.onnx.export(model, x, os.path.join(folder, "model.onnx"), opset_version=opset,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": dynamic, "logits": dynamic})
    for name, t in (("input_0.pb", x), ("output_0.pb", y)):
        array = t.numpy() if not t.is_floating_point() else t.numpy().astype(np.float32)
        proto = onnx.numpy_helper.from_array(array, "input" if name == "input_0.pb" else "logits")
        with open(os.path.join(folder, name), "wb") as f:
            f.write(proto.SerializeToString())
    with open(os.path.join(folder, "loader.yaml"), "w") as f:
        dims = ", ".join(f"{name}: {x.shape[axis]}" for axis, name in dynamic.items())
        f.write(LOADER.format(arch=arch, opset=opset, task=TASKS[task], source=source, dims="{" + dims + "}"))
    print(f"{arch}: opset {opset}, exported in {time.time() - start:.1f}s", flush=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    torch.set_num_threads(2)
    for arch in sys.argv[2:] or ARCHS:
        export(sys.argv[1], arch)


if __name__ == "__main__":
    main()
