// Binary writer/reader of compiled programs for the compile cache.
#include "compiler/program_serialize.h"

#include <cstdio>
#include <cstring>

#include "compiler/compile.h"
#include "core/error.h"

namespace meshtest::compiler {

namespace {

constexpr std::string_view kMagic = "MTPROG01";

class Writer {
 public:
  void u64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void ints(const std::vector<int64_t>& v) {
    u64(v.size());
    for (int64_t x : v) i64(x);
  }
  void ids(const std::vector<int32_t>& v) {
    u64(v.size());
    for (int32_t x : v) i64(x);
  }
  void type(const TensorType& t) {
    u64(static_cast<uint64_t>(t.dtype));
    ints(t.shape);
  }
  void attrs(const Attrs& a) {
    u64(a.values().size());
    for (const auto& [name, value] : a.values()) {
      str(name);
      u64(value.index());
      if (const auto* i = std::get_if<int64_t>(&value)) i64(*i);
      if (const auto* d = std::get_if<double>(&value)) {
        uint64_t bits;
        std::memcpy(&bits, d, sizeof bits);
        u64(bits);
      }
      if (const auto* s = std::get_if<std::string>(&value)) str(*s);
      if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) ints(*v);
    }
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint64_t u64() {
    need(sizeof(uint64_t));
    uint64_t v;
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  size_t count() {
    const uint64_t n = u64();
    if (n > in_.size()) fail("implausible count");
    return static_cast<size_t>(n);
  }
  std::string str() {
    const size_t n = count();
    need(n);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::vector<int64_t> ints() {
    std::vector<int64_t> v(count());
    for (int64_t& x : v) x = i64();
    return v;
  }
  std::vector<int32_t> ids() {
    std::vector<int32_t> v(count());
    for (int32_t& x : v) x = static_cast<int32_t>(i64());
    return v;
  }
  TensorType type() {
    const uint64_t dtype = u64();
    if (dtype > static_cast<uint64_t>(DType::Bool)) fail("bad dtype");
    return {static_cast<DType>(dtype), ints()};
  }
  Attrs attrs() {
    Attrs a;
    for (size_t n = count(); n > 0; --n) {
      const std::string name = str();
      switch (u64()) {
        case 0:
          a.set(name, i64());
          break;
        case 1: {
          const uint64_t bits = u64();
          double d;
          std::memcpy(&d, &bits, sizeof d);
          a.set(name, d);
          break;
        }
        case 2:
          a.set(name, str());
          break;
        case 3:
          a.set(name, ints());
          break;
        default:
          fail("bad attribute kind");
      }
    }
    return a;
  }
  // The next `n` bytes, without copying them.
  std::string_view view(size_t n) {
    need(n);
    const std::string_view v = in_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  void need(size_t n) const {
    if (in_.size() - pos_ < n) fail("truncated");
  }
  [[noreturn]] static void fail(const std::string& what) { throw ParseError("compiled program: " + what); }
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

void Hasher::bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  if (n >= 64) {  // four independent lanes keep the multiplier busy
    uint64_t lane[4] = {a_, b_, a_ ^ 0x5bd1e995ull, b_ ^ 0x27d4eb2full};
    for (; i + 32 <= n; i += 32) {
      for (int k = 0; k < 4; ++k) {
        uint64_t w;
        std::memcpy(&w, p + i + 8 * k, sizeof w);
        lane[k] = (lane[k] ^ w) * 0x9e3779b97f4a7c15ull;
        lane[k] ^= lane[k] >> 32;
      }
    }
    for (uint64_t l : lane) word(l);
  }
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    word(w);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p + i, n - i);
  word(tail);
  word(n);
}

std::string Hasher::hex() const {
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a_),
                static_cast<unsigned long long>(b_));
  return text;
}

uint64_t hash_bytes(std::string_view bytes) {
  Hasher h;
  h.str(bytes);
  return h.low();
}

std::string serialize_program(const SerializedProgram& entry) {
  const DeviceProgram& p = entry.program;
  Writer w;
  w.str(kMagic);
  w.str(kCompilerVersion);
  w.str(entry.key);
  w.str(p.name);
  w.u64(p.buffers.size());
  for (const DeviceBuffer& b : p.buffers) {
    w.i64(b.id);
    w.u64(static_cast<uint64_t>(b.kind));
    w.type(b.type);
    w.str(b.name);
    w.i64(b.device_bytes);
    w.u64(static_cast<uint64_t>(b.space));
  }
  w.u64(p.instrs.size());
  for (const DeviceInstr& instr : p.instrs) {
    w.u64(static_cast<uint64_t>(instr.kind));
    w.ids(instr.inputs);
    w.i64(instr.output);
    w.attrs(instr.attrs);
    w.str(instr.origin);
    w.ids(instr.release);
  }
  w.u64(p.weights.size());
  for (const auto& [id, t] : p.weights) {
    w.i64(id);
    w.type({t.dtype(), t.shape()});
    w.str(std::string_view(static_cast<const char*>(t.raw_data()), t.nbytes()));
  }
  w.u64(p.outputs.size());
  for (const auto& [name, id] : p.outputs) {
    w.str(name);
    w.i64(id);
  }
  w.i64(p.planned_peak_dram_bytes);
  w.i64(p.planned_peak_l1_bytes);
  w.u64(entry.stats.size());
  for (const auto& [name, value] : entry.stats) {
    w.str(name);
    w.i64(value);
  }
  std::string out = w.take();
  const uint64_t checksum = hash_bytes(out);
  out.append(reinterpret_cast<const char*>(&checksum), sizeof checksum);
  return out;
}

SerializedProgram deserialize_program(std::string_view bytes) {
  if (bytes.size() < sizeof(uint64_t)) throw ParseError("compiled program: truncated");
  const std::string_view body = bytes.substr(0, bytes.size() - sizeof(uint64_t));
  uint64_t checksum;
  std::memcpy(&checksum, bytes.data() + body.size(), sizeof checksum);
  if (hash_bytes(body) != checksum) throw ParseError("compiled program: checksum mismatch (corrupted)");
  Reader r(body);
  if (r.str() != kMagic) throw ParseError("compiled program: not a meshtest program");
  if (const std::string v = r.str(); v != kCompilerVersion) {
    throw ParseError("compiled program: made by '" + v + "', this is '" + kCompilerVersion + "'");
  }
  SerializedProgram entry;
  entry.key = r.str();
  DeviceProgram& p = entry.program;
  p.name = r.str();
  p.buffers.resize(r.count());
  for (DeviceBuffer& b : p.buffers) {
    b.id = static_cast<int32_t>(r.i64());
    b.kind = static_cast<BufferKind>(r.u64() % 3);
    b.type = r.type();
    b.name = r.str();
    b.device_bytes = r.i64();
    b.space = static_cast<MemorySpace>(r.u64() % 2);
  }
  p.instrs.resize(r.count());
  for (DeviceInstr& instr : p.instrs) {
    const uint64_t kind = r.u64();
    if (kind >= all_ops().size()) throw ParseError("compiled program: unknown op");
    instr.kind = static_cast<OpKind>(kind);
    instr.inputs = r.ids();
    instr.output = static_cast<int32_t>(r.i64());
    instr.attrs = r.attrs();
    instr.origin = r.str();
    instr.release = r.ids();
  }
  for (size_t n = r.count(); n > 0; --n) {
    const auto id = static_cast<int32_t>(r.i64());
    const TensorType type = r.type();
    Tensor t(type.dtype, type.shape);
    const std::string_view data = r.view(r.count());
    if (data.size() != t.nbytes()) throw ParseError("compiled program: weight data size mismatch");
    std::memcpy(t.raw_data(), data.data(), data.size());
    p.weights.emplace(id, std::move(t));
  }
  for (size_t n = r.count(); n > 0; --n) {
    std::string name = r.str();
    p.outputs.emplace_back(std::move(name), static_cast<int32_t>(r.i64()));
  }
  p.planned_peak_dram_bytes = r.i64();
  p.planned_peak_l1_bytes = r.i64();
  for (size_t n = r.count(); n > 0; --n) {
    std::string name = r.str();
    entry.stats[name] = r.i64();
  }
  if (!r.done()) throw ParseError("compiled program: trailing bytes");
  return entry;
}

}  // namespace meshtest::compiler
