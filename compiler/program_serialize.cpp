// Binary writer/reader of compiled programs for the compile cache.
//
// Layout: the magic "MTPROG02"; compiler version, key, program name; buffers;
// the distinct attribute sets; instructions (each naming its attribute set by
// index); weights; outputs; planned peaks; statistics; then a 64-bit checksum
// of everything before it. Integers are little-endian and fixed width (u8
// enums, u32 counts, ids and indexes, i64 sizes and dims); strings are a u32
// length and the bytes; id and dim lists are a u32 count and the raw elements.
#include "compiler/program_serialize.h"

#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "compiler/compile.h"
#include "core/error.h"

namespace meshtest::compiler {

namespace {

// Low half xor high half of the 128-bit product.
uint64_t fold_multiply(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

// Absorbs `blocks` blocks of kLanes words at `p` into `lanes`, lane k taking
// word k of each block.
template <size_t kLanes>
void absorb(uint64_t (&lanes)[kLanes], const unsigned char* p, size_t blocks) {
  uint64_t l[kLanes];
  std::memcpy(l, lanes, sizeof l);  // locals: `p` may alias the lanes' memory
  for (size_t b = 0; b < blocks; ++b, p += 8 * kLanes) {
    for (size_t k = 0; k < kLanes; ++k) {
      uint64_t w;
      std::memcpy(&w, p + 8 * k, sizeof w);
      l[k] = fold_multiply(l[k] ^ w, 0x9e3779b97f4a7c15ull);
    }
  }
  std::memcpy(lanes, l, sizeof l);
}

uint64_t fmix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

}  // namespace

void Hasher::flush() {
  absorb(lanes_, reinterpret_cast<const unsigned char*>(buffer_), buffered_ / kLanes);
  words_ += buffered_;
  buffered_ = 0;
}

void Hasher::bulk(const unsigned char* p, size_t n) {
  word(n);
  size_t i = 0;
  for (; buffered_ != 0; i += 8) word(load_word(p + i));  // fill the buffer, then whole blocks from `p`
  const size_t blocks = (n - i) / (8 * kLanes);
  absorb(lanes_, p + i, blocks);
  words_ += blocks * kLanes;
  for (i += blocks * 8 * kLanes; i + 8 <= n; i += 8) word(load_word(p + i));
  if (i < n) word(load_tail(p + i, n - i));
}

std::pair<uint64_t, uint64_t> Hasher::digest() const {
  Hasher h = *this;
  while (h.buffered_ % kLanes != 0) h.buffer_[h.buffered_++] = 0;
  h.flush();
  // Each half of the result depends on every lane and on the word count.
  uint64_t u = fmix64(words_ + buffered_);
  uint64_t v = 0;
  for (size_t k = 0; k < kLanes; k += 2) {
    u = fmix64(u ^ h.lanes_[k]);
    v = fmix64(v ^ h.lanes_[k + 1] ^ u);
  }
  return {fmix64(u ^ (v * 0x9e3779b97f4a7c15ull)), v};
}

std::string Hasher::hex() const {
  const auto [a, b] = digest();
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

uint64_t hash_bytes(std::string_view bytes) {
  Hasher h;
  h.str(bytes);
  return h.low();
}

namespace {

constexpr std::string_view kMagic = "MTPROG02";
// The fewest bytes each record takes (empty lists and strings).
constexpr size_t kMinBufferBytes = 4 + 1 + (1 + 4) + 4 + 8 + 1 + 4;
constexpr size_t kMinInstrBytes = 4 + 4 + 4 + 4 + 4 + 4;
constexpr size_t kMinWeightBytes = 4 + (1 + 4) + 8;
constexpr size_t kMinOutputBytes = 4 + 4;
constexpr size_t kMinStatBytes = 4 + 8;
constexpr size_t kMinAttrBytes = 4 + 1;
constexpr size_t kMinAttrSetBytes = 4;

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void fail(std::string_view what) {
  throw ParseError("compiled program: " + std::string(what));
}

class Writer {
 public:
  explicit Writer(size_t capacity) { out_.reserve(capacity); }
  template <class T>
  void raw(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void u8(uint8_t v) { raw(v); }
  void u32(uint32_t v) { raw(v); }
  void i32(int32_t v) { raw(v); }
  void i64(int64_t v) { raw(v); }
  void count(size_t n) {
    if (n > std::numeric_limits<uint32_t>::max()) throw Error("compiled program: list too long to store");
    u32(static_cast<uint32_t>(n));
  }
  void str(std::string_view s) {
    count(s.size());
    out_.append(s);
  }
  // A std::vector or SmallVector of trivial elements.
  template <class List>
  void array(const List& v) {
    count(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  }
  // Weight data: a u64 length and the bytes.
  void blob(std::string_view s) {
    raw<uint64_t>(s.size());
    out_.append(s);
  }
  // Bytes as they are (the magic, records written by another Writer).
  void raw_bytes(std::string_view s) { out_.append(s); }
  void type(DType dtype, const Shape& shape) {
    u8(static_cast<uint8_t>(dtype));
    array(shape);
  }
  void attrs(const Attrs& a);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Attribute value kinds on disk: the AttrValue alternatives in order.
enum class AttrKind : uint8_t { Int, Float, String, Ints };

void Writer::attrs(const Attrs& a) {
  count(a.values().size());
  for (const auto& [name, value] : a.values()) {
    str(name);
    u8(static_cast<uint8_t>(value.index()));
    if (const auto* i = std::get_if<int64_t>(&value)) i64(*i);
    if (const auto* d = std::get_if<double>(&value)) raw(*d);
    if (const auto* s = std::get_if<std::string>(&value)) str(*s);
    if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) array(*v);
  }
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T raw() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, view(sizeof v).data(), sizeof v);
    return v;
  }
  uint8_t u8() { return raw<uint8_t>(); }
  uint32_t u32() { return raw<uint32_t>(); }
  int32_t i32() { return raw<int32_t>(); }
  int64_t i64() { return raw<int64_t>(); }
  // An enum stored as a `Stored` below `limit`.
  template <class E, class Stored = uint8_t>
  E enumerated(size_t limit, std::string_view what) {
    return static_cast<E>(index<Stored>(limit, what));
  }
  // A u32 (or `Stored`) index below `limit`.
  template <class Stored = uint32_t>
  size_t index(size_t limit, std::string_view what) {
    const Stored v = raw<Stored>();
    if (v >= limit) fail(what);
    return v;
  }
  // A string, not copied: it points into the input.
  std::string_view str() { return view(u32()); }
  std::string_view blob() { return view(raw<uint64_t>()); }
  // Replaces `v` (a std::vector or SmallVector of trivial elements) by the
  // next list: one bounds check, then the elements one by one (short lists:
  // cheaper than zero-filling the list and copying over it).
  template <class List>
  void array(List& v) {
    using T = typename List::value_type;
    static_assert(std::is_trivial_v<T>);
    const size_t n = u32();
    const char* data = view(n * sizeof(T)).data();
    v.clear();
    v.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, data + i * sizeof(T), sizeof x);
      v.push_back(x);
    }
  }
  template <class List>
  List list() {
    List v;
    array(v);
    return v;
  }
  TensorType type() {
    const DType dtype = enumerated<DType>(std::size(kAllDTypes), "bad dtype");
    return TensorType{dtype, list<Shape>()};
  }
  void attrs(Attrs& a);
  // The next `n` bytes, without copying them.
  std::string_view view(size_t n) {
    if (in_.size() - pos_ < n) fail("truncated");
    const char* at = in_.data() + pos_;  // not substr(): checked already
    pos_ += n;
    return {at, n};
  }
  bool done() const { return pos_ == in_.size(); }
  // A count of list elements that each take at least `min_bytes`: a corrupted
  // count fails here instead of allocating for elements that are not there.
  size_t count(size_t min_bytes = 1) {
    const size_t n = u32();
    if (n > (in_.size() - pos_) / min_bytes) fail("implausible count");
    return n;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

void Reader::attrs(Attrs& a) {
  for (size_t n = count(kMinAttrBytes); n > 0; --n) {
    const std::string name(str());
    switch (enumerated<AttrKind>(4, "bad attribute kind")) {
      case AttrKind::Int:
        a.set(name, i64());
        break;
      case AttrKind::Float:
        a.set(name, raw<double>());
        break;
      case AttrKind::String:
        a.set(name, std::string(str()));
        break;
      case AttrKind::Ints: {
        std::vector<int64_t> v;
        array(v);
        a.set(name, std::move(v));
        break;
      }
    }
  }
}

void write_buffer(Writer& w, const DeviceBuffer& b) {
  w.i32(b.id);
  w.u8(static_cast<uint8_t>(b.kind));
  w.type(b.type.dtype, b.type.shape);
  w.str(b.name);
  w.i64(b.device_bytes);
  w.u8(static_cast<uint8_t>(b.space));
  w.i32(b.value);
}

// Records are built whole and moved into the program (designated initializers
// are evaluated in order, so fields are read in file order): no element is
// default-constructed first and then overwritten.
DeviceBuffer read_buffer(Reader& r) {
  return DeviceBuffer{.id = r.i32(),
                      .kind = r.enumerated<BufferKind>(3, "bad buffer kind"),
                      .type = r.type(),
                      .name = std::string(r.str()),
                      .device_bytes = r.i64(),
                      .space = r.enumerated<MemorySpace>(2, "bad memory space"),
                      .value = r.i32()};
}

// Writes the distinct attribute sets of `instrs` (each once, in order of first
// use) and gives each instruction the index of its set.
std::vector<uint32_t> write_attr_sets(Writer& w, const std::vector<DeviceInstr>& instrs) {
  std::unordered_map<std::string, uint32_t> index_of;
  std::vector<std::string> sets;
  std::vector<uint32_t> indexes;
  indexes.reserve(instrs.size());
  for (const DeviceInstr& instr : instrs) {
    Writer one(64);
    one.attrs(instr.attrs);
    const auto [it, added] = index_of.try_emplace(one.take(), static_cast<uint32_t>(sets.size()));
    if (added) sets.push_back(it->first);
    indexes.push_back(it->second);
  }
  w.count(sets.size());
  for (const std::string& set : sets) w.raw_bytes(set);
  return indexes;
}

// The attribute sets: loaded once each, then shared by the instructions.
std::vector<Attrs> read_attr_sets(Reader& r) {
  std::vector<Attrs> sets(r.count(kMinAttrSetBytes));
  for (Attrs& a : sets) r.attrs(a);
  return sets;
}

void write_instr(Writer& w, const DeviceInstr& instr, uint32_t attr_set) {
  w.u32(static_cast<uint32_t>(instr.kind));
  w.array(instr.inputs);
  w.i32(instr.output);
  w.u32(attr_set);
  w.str(instr.origin);
  w.array(instr.release);
}

DeviceInstr read_instr(Reader& r, size_t op_kinds, const std::vector<Attrs>& attr_sets) {
  return DeviceInstr{.kind = r.enumerated<OpKind, uint32_t>(op_kinds, "unknown op"),
                     .inputs = r.list<BufferIds>(),
                     .output = r.i32(),
                     .attrs = attr_sets[r.index(attr_sets.size(), "bad attribute set")],
                     .origin = std::string(r.str()),
                     .release = r.list<BufferIds>()};
}

void write_weight(Writer& w, int32_t id, const Tensor& t) {
  w.i32(id);
  w.type(t.dtype(), t.shape());
  w.blob(std::string_view(static_cast<const char*>(t.raw_data()), t.nbytes()));
}

void read_weight(Reader& r, std::map<int32_t, Tensor>& weights) {
  const int32_t id = r.i32();
  const TensorType type = r.type();
  const std::string_view data = r.blob();
  Tensor t(type.dtype, type.shape);
  if (data.size() != t.nbytes()) fail("weight data size mismatch");
  if (!data.empty()) std::memcpy(t.raw_data(), data.data(), data.size());
  if (!weights.emplace(id, std::move(t)).second) fail("duplicate weight");
}

// A rough size of the entry, to write it without reallocating.
size_t estimated_size(const DeviceProgram& p) {
  size_t weights = 0;
  for (const auto& [id, t] : p.weights) weights += t.nbytes() + 64;
  return 256 + 96 * p.buffers.size() + 96 * p.instrs.size() + weights;
}

// The body of `bytes` (without magic and checksum) once both are checked.
std::string_view checked_body(std::string_view bytes) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    fail("not a meshtest program (or one of an older format)");
  }
  if (bytes.size() < kMagic.size() + sizeof(uint64_t)) fail("truncated");
  const std::string_view hashed = bytes.substr(0, bytes.size() - sizeof(uint64_t));
  uint64_t checksum;
  std::memcpy(&checksum, bytes.data() + hashed.size(), sizeof checksum);
  if (hash_bytes(hashed) != checksum) fail("checksum mismatch (corrupted)");
  return hashed.substr(kMagic.size());
}

}  // namespace

std::string serialize_program(const SerializedProgram& entry) {
  const DeviceProgram& p = entry.program;
  Writer w(estimated_size(p));
  w.raw_bytes(kMagic);
  w.str(kCompilerVersion);
  w.str(entry.key);
  w.str(p.name);
  w.count(p.buffers.size());
  for (const DeviceBuffer& b : p.buffers) write_buffer(w, b);
  const std::vector<uint32_t> attr_sets = write_attr_sets(w, p.instrs);
  w.count(p.instrs.size());
  for (size_t i = 0; i < p.instrs.size(); ++i) write_instr(w, p.instrs[i], attr_sets[i]);
  w.count(p.weights.size());
  for (const auto& [id, t] : p.weights) write_weight(w, id, t);
  w.count(p.outputs.size());
  for (const auto& [name, id] : p.outputs) {
    w.str(name);
    w.i32(id);
  }
  w.i64(p.planned_peak_dram_bytes);
  w.i64(p.planned_peak_l1_bytes);
  w.count(entry.stats.size());
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
  Reader r(checked_body(bytes));
  if (const std::string_view v = r.str(); v != kCompilerVersion) {
    fail("made by '" + std::string(v) + "', this is '" + kCompilerVersion + "'");
  }
  SerializedProgram entry;
  entry.key = r.str();
  DeviceProgram& p = entry.program;
  p.name = r.str();
  const size_t buffers = r.count(kMinBufferBytes);
  p.buffers.reserve(buffers);
  for (size_t i = 0; i < buffers; ++i) p.buffers.push_back(read_buffer(r));
  const std::vector<Attrs> attr_sets = read_attr_sets(r);
  const size_t instrs = r.count(kMinInstrBytes);
  p.instrs.reserve(instrs);
  const size_t op_kinds = all_ops().size();
  for (size_t i = 0; i < instrs; ++i) p.instrs.push_back(read_instr(r, op_kinds, attr_sets));
  for (size_t n = r.count(kMinWeightBytes); n > 0; --n) read_weight(r, p.weights);
  p.outputs.resize(r.count(kMinOutputBytes));
  for (auto& [name, id] : p.outputs) {
    name = r.str();
    id = r.i32();
  }
  p.planned_peak_dram_bytes = r.i64();
  p.planned_peak_l1_bytes = r.i64();
  for (size_t n = r.count(kMinStatBytes); n > 0; --n) {
    std::string name(r.str());
    entry.stats[std::move(name)] = r.i64();
  }
  if (!r.done()) fail("trailing bytes");
  return entry;
}

}  // namespace meshtest::compiler
