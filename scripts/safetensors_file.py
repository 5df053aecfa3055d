"""Writes numpy arrays as a safetensors file (the format meshtest reads inputs
and expected outputs from): an 8-byte little-endian header length, a JSON
header padded to 8 bytes, then each tensor's raw little-endian bytes."""
import json
import struct

import numpy as np

try:  # bf16 comes with JAX's ml_dtypes where it is installed
    import ml_dtypes
    _BF16 = {np.dtype(ml_dtypes.bfloat16): "BF16"}
except ImportError:
    _BF16 = {}

DTYPE_NAMES = {
    np.dtype(np.float32): "F32", np.dtype(np.float64): "F64", np.dtype(np.float16): "F16",
    np.dtype(np.bool_): "BOOL", np.dtype(np.int8): "I8", np.dtype(np.int16): "I16",
    np.dtype(np.int32): "I32", np.dtype(np.int64): "I64", np.dtype(np.uint8): "U8",
    np.dtype(np.uint16): "U16", np.dtype(np.uint32): "U32", np.dtype(np.uint64): "U64", **_BF16,
}


def write_safetensors(path, tensors):
    """`tensors`: name -> numpy array, written in that order."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": DTYPE_NAMES[np.dtype(array.dtype)], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode())
        for blob in blobs:
            f.write(blob)
