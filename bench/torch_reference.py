#!/usr/bin/python3
"""PyTorch CPU timings of the native model zoo's ResNets, as a yardstick for
meshtest's CPU reference executor on the same machine.

torchvision resnet50 and resnet18 in eval mode, batch 1, 224x224, float32,
random weights, torch.set_num_threads(2), 3 warm-up runs then 10 timed runs;
prints the median, e.g. `torch resnet50 batch1 f32: 123.4 ms (median of 10)`.
(BERT-base is left out: Hugging Face transformers is not available here.)

OMP_WAIT_POLICY defaults to PASSIVE: with libgomp's default spinning, two
OpenMP threads on a 2-core machine that is doing anything else run ~10x slower
(measured: resnet50 2.2 s instead of 0.31 s), which would time the machine's
load rather than the model. Set OMP_WAIT_POLICY=ACTIVE to compare.

Needs PyTorch and torchvision: on Debian `apt-get install python3-torch
python3-torchvision` (they install for /usr/bin/python3, hence the shebang).
"""
import argparse
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


def time_model(name: str, batch: int, warmup: int, runs: int) -> float:
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()  # random weights
    x = torch.randn(batch, 3, 224, 224, dtype=torch.float32)
    with torch.inference_mode():
        for _ in range(warmup):
            model(x)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["resnet50", "resnet18"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"threads {torch.get_num_threads()}, OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}")
    for name in args.models:
        ms = time_model(name, args.batch, args.warmup, args.runs)
        print(f"torch {name} batch{args.batch} f32: {ms:.1f} ms (median of {args.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
