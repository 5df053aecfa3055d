#!/usr/bin/env python3
"""Writes real JAX programs as StableHLO cases for meshtest's models root.

For each model: <out>/<name>.mlir (what `jax.jit(f).lower(*args).as_text()`
prints), <name>.safetensors (the inputs, named arg0, arg1, ... by position)
and <name>.expected.safetensors (JAX's outputs, out0, out1, ...), plus
<name>.generic.mlir.txt: the same module in MLIR's generic form, for the
reader's tests (not a case: the extension is not .mlir).

Needs JAX (not on the development machines; the GPU machine has it):
    python3 scripts/stablehlo_jax_models.py OUT_DIR
Outputs are computed on the CPU backend in f32 at highest matmul precision so
they are a reference, not a GPU's TF32 approximation.
"""
import sys
from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_default_matmul_precision", "highest")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from safetensors_file import write_safetensors  # noqa: E402  (beside this script)

def normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def dense(x, w, b):
    return x @ w + b


# ---- two-layer MLP ----
def mlp(x, w1, b1, w2, b2):
    return dense(jax.nn.gelu(dense(x, w1, b1), approximate=False), w2, b2)


def mlp_args(rng):
    return [normal(rng, (8, 64)), normal(rng, (64, 128), 0.125), normal(rng, (128,), 0.1),
            normal(rng, (128, 10), 0.09), normal(rng, (10,), 0.1)]


# ---- small CNN (NCHW, OIHW) ----
def conv(x, w, b, stride=1):
    y = jax.lax.conv_general_dilated(x, w, (stride, stride), ((1, 1), (1, 1)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return y + b[None, :, None, None]


def max_pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def cnn(x, w1, b1, w2, b2, w3, b3):
    y = max_pool(jax.nn.relu(conv(x, w1, b1)))
    y = jax.nn.relu(conv(y, w2, b2, stride=2))
    y = jnp.mean(y, axis=(2, 3))
    return dense(y, w3, b3)


def cnn_args(rng):
    return [normal(rng, (2, 3, 32, 32)), normal(rng, (16, 3, 3, 3), 0.2), normal(rng, (16,), 0.1),
            normal(rng, (32, 16, 3, 3), 0.08), normal(rng, (32,), 0.1), normal(rng, (32, 10), 0.18),
            normal(rng, (10,), 0.1)]


# ---- transformer encoder block (post-norm, as BERT) ----
def layer_norm(x, g, b, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * g + b


def attention(q, k, v, mask=None):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    if mask is not None:
        scores = jnp.where(mask, scores, jnp.float32(-1e9))
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


def split_heads(x, heads):
    b, s, d = x.shape
    return x.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, h * d)


def encoder_block(x, wq, wk, wv, wo, g1, b1, w_up, b_up, w_down, b_down, g2, b2):
    heads = 4
    q, k, v = (split_heads(x @ w, heads) for w in (wq, wk, wv))
    x = layer_norm(x + merge_heads(attention(q, k, v)) @ wo, g1, b1)
    h = jax.nn.gelu(dense(x, w_up, b_up), approximate=True)
    return layer_norm(x + dense(h, w_down, b_down), g2, b2)


def encoder_args(rng):
    d, f = 64, 256
    w = lambda *s: normal(rng, s, 1.0 / np.sqrt(s[0]))  # noqa: E731
    return [normal(rng, (2, 16, d)), w(d, d), w(d, d), w(d, d), w(d, d),
            1 + normal(rng, (d,), 0.1), normal(rng, (d,), 0.1), w(d, f), normal(rng, (f,), 0.1),
            w(f, d), normal(rng, (d,), 0.1), 1 + normal(rng, (d,), 0.1), normal(rng, (d,), 0.1)]


# ---- llama-style decoder block: RMSNorm, RoPE, GQA, causal mask, SwiGLU ----
def rms_norm(x, g, eps=1e-6):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + eps) * g


def rope(x, positions):
    half = x.shape[-1] // 2
    freqs = 1.0 / (10000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
    angles = positions[:, None].astype(jnp.float32) * freqs[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


def llama_block(x, g_attn, wq, wk, wv, wo, g_mlp, w_gate, w_up, w_down):
    heads, kv_heads = 8, 2
    seq = x.shape[1]
    h = rms_norm(x, g_attn)
    q, k, v = split_heads(h @ wq, heads), split_heads(h @ wk, kv_heads), split_heads(h @ wv, kv_heads)
    positions = jnp.arange(seq)
    q, k = rope(q, positions), rope(k, positions)
    k, v = (jnp.repeat(t, heads // kv_heads, axis=1) for t in (k, v))
    causal = jnp.tril(jnp.ones((seq, seq), dtype=bool))[None, None]
    x = x + merge_heads(attention(q, k, v, causal)) @ wo
    h = rms_norm(x, g_mlp)
    return x + (jax.nn.silu(h @ w_gate) * (h @ w_up)) @ w_down


def llama_args(rng):
    d, kv, f = 128, 32, 256
    w = lambda *s: normal(rng, s, 1.0 / np.sqrt(s[0]))  # noqa: E731
    return [normal(rng, (1, 32, d)), 1 + normal(rng, (d,), 0.1), w(d, d), w(d, kv), w(d, kv), w(d, d),
            1 + normal(rng, (d,), 0.1), w(d, f), w(d, f), w(f, d)]


MODELS = {
    "mlp": (mlp, mlp_args),
    "cnn": (cnn, cnn_args),
    "transformer_encoder_block": (encoder_block, encoder_args),
    "llama_block": (llama_block, llama_args),
}


def main(out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for seed, (name, (fn, make_args)) in enumerate(MODELS.items()):
        args = make_args(np.random.default_rng(1000 + seed))
        lowered = jax.jit(fn).lower(*args)
        (out / f"{name}.mlir").write_text(lowered.as_text())
        generic = lowered.compiler_ir(dialect="stablehlo").operation.get_asm(print_generic_op_form=True)
        (out / f"{name}.generic.mlir.txt").write_text(generic)
        results = jax.jit(fn)(*args)
        results = results if isinstance(results, (tuple, list)) else [results]
        write_safetensors(out / f"{name}.safetensors", {f"arg{i}": a for i, a in enumerate(args)})
        write_safetensors(out / f"{name}.expected.safetensors",
                          {f"out{i}": np.asarray(r) for i, r in enumerate(results)})
        print(f"{name}: {len(args)} args, outputs {[np.asarray(r).shape for r in results]}")
    print("jax", jax.__version__)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "jax_models")
