#!/usr/bin/env node
// ONNX Runtime (npm onnxruntime-node, its bundled CPU build) as a second
// reference: for every loader folder under ROOT holding model.onnx and
// input_0.pb (what scripts/export_torchvision.py makes), runs the model on
// ONNX Runtime's CPU provider and writes its first output as
// output_ort.pb, next to PyTorch's output_0.pb. Run when test data is
// made, never at meshtest's run time.
//
// usage: NODE_PATH=DIR/node_modules node scripts/onnx_runtime_outputs.js ROOT
//        (DIR: where `npm install --ignore-scripts onnxruntime-node` put it)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// The few TensorProto fields these files use: dims (1), data_type (2),
// name (8), raw_data (9); float and int64 tensors.
function readVarint(buf, pos) {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value, pos];
    shift += 7n;
  }
}

function parseTensor(buf) {
  const t = {dims: [], type: 0, name: '', raw: null};
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      if (field === 1) t.dims.push(Number(v));
      if (field === 2) t.type = Number(v);
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      const bytes = buf.subarray(pos, pos + Number(len));
      pos += Number(len);
      if (field === 1) {  // packed dims
        for (let p = 0; p < bytes.length;) {
          let v;
          [v, p] = readVarint(bytes, p);
          t.dims.push(Number(v));
        }
      } else if (field === 8) {
        t.name = bytes.toString('utf8');
      } else if (field === 9) {
        t.raw = bytes;
      }
    } else {
      throw new Error('unexpected wire type ' + wire);
    }
  }
  if ((t.type !== 1 && t.type !== 7) || t.raw === null) throw new Error('only float and int64 tensors with raw data are read');
  const bytes = t.raw.buffer.slice(t.raw.byteOffset, t.raw.byteOffset + t.raw.length);
  return t.type === 1 ? new ort.Tensor('float32', new Float32Array(bytes), t.dims)
                      : new ort.Tensor('int64', new BigInt64Array(bytes), t.dims);
}

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return Buffer.from(out);
}

function serializeTensor(tensor, name) {
  const raw = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  const parts = tensor.dims.map((d) => Buffer.concat([varint(1 << 3), varint(d)]));
  parts.push(Buffer.concat([varint(2 << 3), varint(1)]));
  const nameBytes = Buffer.from(name, 'utf8');
  parts.push(Buffer.concat([varint((8 << 3) | 2), varint(nameBytes.length), nameBytes]));
  parts.push(Buffer.concat([varint((9 << 3) | 2), varint(raw.length), raw]));
  return Buffer.concat(parts);
}

async function run(folder) {
  const session = await ort.InferenceSession.create(path.join(folder, 'model.onnx'), {executionProviders: ['cpu']});
  const input = parseTensor(fs.readFileSync(path.join(folder, 'input_0.pb')));
  const outputs = await session.run({[session.inputNames[0]]: input});
  const name = session.outputNames[0];
  fs.writeFileSync(path.join(folder, 'output_ort.pb'), serializeTensor(outputs[name], name));
  console.log(folder + ': output_ort.pb');
}

async function main() {
  const root = process.argv[2];
  if (!root) {
    console.error('usage: onnx_runtime_outputs.js ROOT');
    process.exit(2);
  }
  const folders = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
    }
    if (fs.existsSync(path.join(dir, 'model.onnx')) && fs.existsSync(path.join(dir, 'input_0.pb'))) folders.push(dir);
  };
  walk(root);
  for (const folder of folders.sort()) {
    if (!fs.existsSync(path.join(folder, 'output_ort.pb'))) await run(folder);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
