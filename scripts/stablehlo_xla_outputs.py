#!/usr/bin/env python3
"""Runs StableHLO programs on XLA and writes them out as meshtest cases.

For each IN_DIR/*.mlir (e.g. what `meshtest export ID --format stablehlo`
wrote): parses it with JAX's MLIR bindings (the StableHLO verifier), compiles
it with XLA for the CPU (and, when present, the GPU: compile only, reported),
draws inputs for every argument of @main (floats N(0, 1), variances -- a
`meshtest.name` ending in running_var -- U(0.5, 2), integers in [0, 2),
booleans random; seeded by the file name) and runs it. OUT_DIR then holds, per
program, <stem>.mlir (a copy), <stem>.safetensors (arg0, arg1, ...) and
<stem>.expected.safetensors (XLA's outputs out0, out1, ...): a models root on
which `meshtest run --models-root OUT_DIR` checks meshtest's CPU reference
against XLA's outputs before it runs each program on the device.

Needs JAX (the GPU machine has it, not the development machines):
    python3 scripts/stablehlo_xla_outputs.py IN_DIR OUT_DIR
"""
import hashlib
import shutil
import sys
import traceback
from pathlib import Path

import jax

jax.config.update("jax_default_matmul_precision", "highest")
jax.config.update("jax_enable_x64", True)  # i64 / f64 arguments stay 64-bit

import ml_dtypes  # noqa: E402  (ships with JAX)
import numpy as np  # noqa: E402
from jax._src import compiler, xla_bridge  # noqa: E402
from jax._src.interpreters import mlir  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402
from safetensors_file import write_safetensors  # noqa: E402  (beside this script)

ELEMENTS = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
}
def argument_names(main_op, count):
    """Each argument's `meshtest.name` (what `meshtest export` writes), or ""."""
    names = [""] * count
    if "arg_attrs" not in main_op.attributes:
        return names
    for i, attrs in enumerate(ir.ArrayAttr(main_op.attributes["arg_attrs"])):
        attrs = ir.DictAttr(attrs)
        if i < count and "meshtest.name" in attrs:
            names[i] = ir.StringAttr(attrs["meshtest.name"]).value
    return names


def main_arguments(module):
    """(type, meshtest name) of each argument of @main."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            types = [ir.RankedTensorType(t) for t in function_type.inputs]
            return list(zip(types, argument_names(op, len(types))))
    raise ValueError("no @main")


def draw(rng, tensor_type, name):
    shape = tuple(tensor_type.shape)
    element = str(tensor_type.element_type)
    dtype = ELEMENTS[element]
    if element == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(0, 2, shape).astype(dtype)
    if name.endswith("running_var"):  # a variance: positive, as meshtest's own weights
        return rng.uniform(0.5, 2.0, shape).astype(np.float32).astype(dtype)
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


def compile_for(backend, module):
    devices = xc.DeviceList(tuple(backend.local_devices()[:1]))
    options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    return compiler.backend_compile_and_load(backend, module, devices, options, [])


def run_program(path, out_dir, gpu_backend):
    text = path.read_text()
    context = mlir.make_ir_context()
    with context:
        module = ir.Module.parse(text)
        if not module.operation.verify():
            raise ValueError("the module does not verify")
        arguments = main_arguments(module)
        seed = int.from_bytes(hashlib.sha256(path.name.encode()).digest()[:8], "little")
        args = [draw(np.random.default_rng(seed + i), t, name) for i, (t, name) in enumerate(arguments)]
        executable = compile_for(xla_bridge.get_backend("cpu"), module)
        gpu_note = ""
        if gpu_backend is not None:
            compile_for(gpu_backend, ir.Module.parse(text))
            gpu_note = ", compiled for the GPU too"
    cpu = jax.devices("cpu")[0]
    arrays = [jax.device_put(a, cpu) for a in args]
    results = executable.execute_sharded(arrays).disassemble_into_single_device_arrays()
    outputs = [np.asarray(r[0]) for r in results]
    shutil.copyfile(path, out_dir / path.name)
    write_safetensors(out_dir / f"{path.stem}.safetensors", {f"arg{i}": a for i, a in enumerate(args)})
    write_safetensors(out_dir / f"{path.stem}.expected.safetensors",
                      {f"out{i}": o for i, o in enumerate(outputs)})
    return f"{len(args)} args, outputs {[o.shape for o in outputs]}{gpu_note}"


def main(in_dir, out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        gpu_backend = xla_bridge.get_backend("gpu")
    except Exception:  # no GPU here: CPU only
        gpu_backend = None
    failures = 0
    for path in sorted(Path(in_dir).glob("*.mlir")):
        try:
            print(f"ok    {path.name}: {run_program(path, out, gpu_backend)}", flush=True)
        except Exception as error:  # one program's failure is reported, the rest still run
            failures += 1
            message = str(error).strip().splitlines()
            print(f"FAIL  {path.name}: {message[0] if message else type(error).__name__}", flush=True)
            traceback.print_exc(limit=2, file=sys.stdout)
    print(f"jax {jax.__version__}: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
