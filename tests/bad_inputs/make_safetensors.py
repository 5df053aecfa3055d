# Writes a safetensors file for the bad-input catalogue: make_safetensors.py
# FILE HEADER_JSON DATA_BYTES [HEADER_SIZE] — the header exactly as given
# (however wrong; "@PATH" reads it from PATH), DATA_BYTES zero bytes after it, and the 8-byte size field
# set to HEADER_SIZE when given (a lie), else to the header's length.
import struct
import sys

path, header, data_bytes = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
if header.startswith(b"@"):
    with open(header[1:], "rb") as f:
        header = f.read()
size = int(sys.argv[4]) if len(sys.argv) > 4 else len(header)
with open(path, "wb") as f:
    f.write(struct.pack("<Q", size) + header + bytes(data_bytes))
