#!/usr/bin/python3
"""PyTorch CPU forward timings of the zoo models in bench/run's table, the
yardstick a meshtest case (two forwards and a comparison) is read against.

torchvision resnet18, resnet50, mobilenet_v2 and vit_b_16 in eval mode,
batch 1, 224x224, float32, random weights; bert_base as its 12-layer encoder
only (nn.TransformerEncoder, hidden 768, 12 heads, FFN 3072, GELU, sequence
128: Hugging Face transformers is not installed here). torch.set_num_threads(2),
3 warm-up runs then N timed; prints the minimum and the median, e.g.
`torch resnet50 batch1 f32: min 45.1 ms, median 47.0 ms (10 runs)`, and which
BLAS library torch loaded (without libopenblas0-pthread Debian's torch falls
back to the reference BLAS: vit_b_16 takes 8.5 s instead of 0.4 s).
`--json FILE` writes {model: seconds (min)} for bench/run.

OMP_WAIT_POLICY defaults to PASSIVE: with libgomp's default spinning, two
OpenMP threads on a 2-core machine that is doing anything else run ~10x slower
(measured: resnet50 2.2 s instead of 0.31 s), which would time the machine's
load rather than the model. Set OMP_WAIT_POLICY=ACTIVE to compare.

Needs PyTorch and torchvision: on Debian `apt-get install python3-torch
python3-torchvision libopenblas0-pthread` (they install for /usr/bin/python3,
hence the shebang).
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch starts OpenMP

try:
    import torch
    import torchvision
except ImportError as e:  # pragma: no cover - environment check
    sys.exit(f"torch_reference.py: {e}; install python3-torch and python3-torchvision "
             "and run with /usr/bin/python3")

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "vit_b_16", "bert_base"]


def blas_library() -> str:
    """The BLAS shared object this process loaded (from /proc/self/maps)."""
    found = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if "blas" in name or "mkl" in name:
                found.add(os.path.realpath(path))
    return ", ".join(sorted(found)) or "none found (torch's own kernels)"


def build(name: str, batch: int):
    torch.manual_seed(0)
    if name == "bert_base":
        layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu", batch_first=True)
        return torch.nn.TransformerEncoder(layer, 12).eval(), torch.randn(batch, 128, 768)
    model = getattr(torchvision.models, name)().eval()  # random weights
    return model, torch.randn(batch, 3, 224, 224, dtype=torch.float32)


def time_model(name: str, batch: int, warmup: int, runs: int) -> list:
    model, x = build(name, batch)
    with torch.inference_mode():
        for _ in range(warmup):
            model(x)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", help="write {model: min seconds} here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.zeros(64, 64) @ torch.zeros(64, 64)  # loads the BLAS
    print(f"# torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"threads {torch.get_num_threads()}, OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}, "
          f"BLAS {blas_library()}")
    result = {}
    for name in args.models:
        times = time_model(name, args.batch, args.warmup, args.runs)
        result[name] = min(times)
        print(f"torch {name} batch{args.batch} f32: min {min(times) * 1e3:.1f} ms, "
              f"median {statistics.median(times) * 1e3:.1f} ms ({args.runs} runs)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"blas": blas_library(), "seconds": result}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
