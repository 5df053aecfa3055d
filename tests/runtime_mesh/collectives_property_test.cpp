// Property tests of the mesh collectives: on random shapes, 1-D and 2-D meshes
// and every choice of axes, each collective equals a plain host computation
// written here from the definitions (no code shared with the runtime).
#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "core/rng.h"
#include "runtime/mesh/collectives.h"

namespace meshtest::runtime {
namespace {

struct Case {
  Mesh mesh;
  std::vector<int> axes;  // indices into mesh
};

// Host model of a mesh: coordinates and groups from first principles.
struct HostMesh {
  std::vector<int64_t> shape;
  std::vector<int64_t> coord(int64_t chip) const {
    std::vector<int64_t> c(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = chip % shape[d];
      chip /= shape[d];
    }
    return c;
  }
  int64_t chips() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  // Members of chip's group ordered by their coordinates along `axes` (row-major).
  std::vector<int64_t> group(int64_t chip, const std::vector<int>& axes) const {
    std::vector<std::pair<int64_t, int64_t>> ranked;
    const auto mine = coord(chip);
    for (int64_t other = 0; other < chips(); ++other) {
      const auto c = coord(other);
      bool same = true;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (std::find(axes.begin(), axes.end(), static_cast<int>(d)) == axes.end() && c[d] != mine[d]) same = false;
      }
      if (!same) continue;
      int64_t rank = 0;
      for (int a : axes) rank = rank * shape[static_cast<size_t>(a)] + c[static_cast<size_t>(a)];
      ranked.emplace_back(rank, other);
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<int64_t> out;
    for (const auto& [rank, c] : ranked) out.push_back(c);
    return out;
  }
};

// Flat offset of a multi-index.
int64_t offset(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t o = 0;
  for (size_t d = 0; d < shape.size(); ++d) o = o * shape[d] + idx[d];
  return o;
}

// Calls fn(idx) for every multi-index of `shape`.
template <class Fn>
void for_each_index(const Shape& shape, Fn fn) {
  std::vector<int64_t> idx(shape.size(), 0);
  const int64_t n = shape_numel(shape);
  for (int64_t i = 0; i < n; ++i) {
    fn(idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

float at(const Tensor& t, const std::vector<int64_t>& idx) { return t.data<float>()[offset(t.shape(), idx)]; }

std::vector<Case> cases() {
  const Mesh line{{4}, {"x"}};
  const Mesh grid{{2, 4}, {"r", "c"}};
  const Mesh tall{{3, 2}, {"r", "c"}};
  return {{line, {0}}, {grid, {0}}, {grid, {1}}, {grid, {0, 1}}, {grid, {1, 0}}, {tall, {0}}, {tall, {1, 0}}};
}

std::string axes_attr(const Mesh& mesh, const std::vector<int>& axes) {
  std::string s;
  for (int a : axes) s += (s.empty() ? "" : ",") + mesh.axis_names[static_cast<size_t>(a)];
  return s;
}

class CollectiveProperty : public ::testing::TestWithParam<int> {
 protected:
  // Random shape of rank 1..3 whose `dim` is a multiple of `multiple`.
  Shape random_shape(std::mt19937& gen, int64_t dim, int64_t multiple, int64_t rank) {
    Shape s(static_cast<size_t>(rank));
    for (auto& d : s) d = std::uniform_int_distribution<int64_t>(1, 5)(gen);
    s[static_cast<size_t>(dim)] = multiple * std::uniform_int_distribution<int64_t>(1, 3)(gen);
    return s;
  }
  std::vector<Tensor> random_operands(const Shape& s, int64_t chips, uint64_t seed) {
    std::vector<Tensor> out;
    for (int64_t c = 0; c < chips; ++c) out.push_back(random_normal(s, seed + static_cast<uint64_t>(c), 0.0f, 1.0f));
    return out;
  }
};

TEST_P(CollectiveProperty, MatchesHostComputation) {
  std::mt19937 gen(static_cast<uint32_t>(GetParam()) * 7919u + 1u);
  for (const Case& k : cases()) {
    const HostMesh host{k.mesh.shape};
    const int64_t chips = host.chips();
    int64_t g = 1;
    for (int a : k.axes) g *= k.mesh.shape[static_cast<size_t>(a)];
    const int64_t rank = std::uniform_int_distribution<int64_t>(1, 3)(gen);
    const int64_t dim = std::uniform_int_distribution<int64_t>(0, rank - 1)(gen);
    const int64_t other = std::uniform_int_distribution<int64_t>(0, rank - 1)(gen);
    SCOPED_TRACE("mesh " + k.mesh.text() + " axes " + axes_attr(k.mesh, k.axes) + " dim " + std::to_string(dim));
    const Shape s = random_shape(gen, dim, g, rank);
    const std::vector<Tensor> in = random_operands(s, chips, static_cast<uint64_t>(GetParam()) * 1000);
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : in) ptrs.push_back(&t);
    const std::string axes = axes_attr(k.mesh, k.axes);

    // all_reduce: every member holds the group's sum.
    const CollectiveResult ar = run_collective(OpKind::AllReduce, {{"axes", axes}}, k.mesh, ptrs);
    // all_gather along dim: member blocks in rank order.
    const CollectiveResult ag = run_collective(OpKind::AllGather, {{"axes", axes}, {"dim", dim}}, k.mesh, ptrs);
    // reduce_scatter along dim: block r of the sum to rank r.
    const CollectiveResult rs = run_collective(OpKind::ReduceScatter, {{"axes", axes}, {"dim", dim}}, k.mesh, ptrs);
    // shard_slice along dim: rank r keeps block r of its own operand.
    const CollectiveResult sl = run_collective(OpKind::ShardSlice, {{"axes", axes}, {"dim", dim}}, k.mesh, ptrs);
    // all_to_all: split `dim`, concat `other`.
    const CollectiveResult a2a =
        run_collective(OpKind::AllToAll, {{"axes", axes}, {"split_dim", dim}, {"concat_dim", other}}, k.mesh, ptrs);

    for (int64_t chip = 0; chip < chips; ++chip) {
      const std::vector<int64_t> members = host.group(chip, k.axes);
      ASSERT_EQ(static_cast<int64_t>(members.size()), g);
      const int64_t my_rank = std::find(members.begin(), members.end(), chip) - members.begin();
      const Tensor& got_ar = ar.per_chip[static_cast<size_t>(chip)];
      ASSERT_EQ(got_ar.shape(), s);
      for_each_index(s, [&](const std::vector<int64_t>& idx) {
        float sum = 0;
        for (int64_t m : members) sum += at(in[static_cast<size_t>(m)], idx);
        ASSERT_FLOAT_EQ(at(got_ar, idx), sum);
      });
      const Tensor& got_ag = ag.per_chip[static_cast<size_t>(chip)];
      Shape gs = s;
      gs[static_cast<size_t>(dim)] *= g;
      ASSERT_EQ(got_ag.shape(), gs);
      for_each_index(gs, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> local = idx;
        const int64_t block = idx[static_cast<size_t>(dim)] / s[static_cast<size_t>(dim)];
        local[static_cast<size_t>(dim)] %= s[static_cast<size_t>(dim)];
        ASSERT_EQ(at(got_ag, idx), at(in[static_cast<size_t>(members[static_cast<size_t>(block)])], local));
      });
      const Tensor& got_rs = rs.per_chip[static_cast<size_t>(chip)];
      Shape ss = s;
      ss[static_cast<size_t>(dim)] /= g;
      ASSERT_EQ(got_rs.shape(), ss);
      for_each_index(ss, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> global = idx;
        global[static_cast<size_t>(dim)] += my_rank * ss[static_cast<size_t>(dim)];
        float sum = 0;
        for (int64_t m : members) sum += at(in[static_cast<size_t>(m)], global);
        ASSERT_FLOAT_EQ(at(got_rs, idx), sum);
      });
      const Tensor& got_sl = sl.per_chip[static_cast<size_t>(chip)];
      ASSERT_EQ(got_sl.shape(), ss);
      for_each_index(ss, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> global = idx;
        global[static_cast<size_t>(dim)] += my_rank * ss[static_cast<size_t>(dim)];
        ASSERT_EQ(at(got_sl, idx), at(in[static_cast<size_t>(chip)], global));
      });
      const Tensor& got_a2a = a2a.per_chip[static_cast<size_t>(chip)];
      Shape as = s;
      as[static_cast<size_t>(dim)] /= g;
      const int64_t block_extent = as[static_cast<size_t>(other)];
      as[static_cast<size_t>(other)] *= g;
      ASSERT_EQ(got_a2a.shape(), as);
      for_each_index(as, [&](const std::vector<int64_t>& idx) {
        // Output block `src` along `other` came from member src's block my_rank along `dim`.
        const int64_t src = idx[static_cast<size_t>(other)] / block_extent;
        std::vector<int64_t> from = idx;
        from[static_cast<size_t>(other)] %= block_extent;
        from[static_cast<size_t>(dim)] += my_rank * (s[static_cast<size_t>(dim)] / g);
        ASSERT_EQ(at(got_a2a, idx), at(in[static_cast<size_t>(members[static_cast<size_t>(src)])], from));
      });
    }
    const int64_t bytes = static_cast<int64_t>(in[0].nbytes());
    EXPECT_EQ(ag.bytes_moved, chips * (g - 1) * bytes);
    EXPECT_EQ(ar.bytes_moved, chips / g * 2 * (g - 1) * bytes);
    EXPECT_EQ(sl.bytes_moved, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(RandomShapes, CollectiveProperty, ::testing::Range(0, 12));

TEST(Collectives, Bf16SumsAccumulateInF32AndRoundOnce) {
  const Mesh mesh{{4}, {"x"}};
  // 256 + 1 + 1 + 1 rounds to 256 step by step in bf16, 260 once at the end.
  std::vector<Tensor> in;
  for (float v : {256.0f, 1.0f, 1.0f, 1.0f}) in.push_back(Tensor::from_f32({1}, {v}).to(DType::BF16));
  const CollectiveResult r =
      run_collective(OpKind::AllReduce, {{"axes", std::string("x")}}, mesh, {&in[0], &in[1], &in[2], &in[3]});
  EXPECT_EQ(r.per_chip[3].to(DType::F32).data<float>()[0], 260.0f);
}

TEST(Collectives, UnknownAxisAndUnevenSplitAreRuntimeErrors) {
  const Mesh mesh{{2}, {"x"}};
  const Tensor a = Tensor::from_f32({3}, {1, 2, 3});
  EXPECT_THROW(run_collective(OpKind::AllReduce, {{"axes", std::string("model")}}, mesh, {&a, &a}), RuntimeError);
  EXPECT_THROW(run_collective(OpKind::ReduceScatter, {{"axes", std::string("x")}, {"dim", int64_t{0}}}, mesh, {&a, &a}),
               RuntimeError);
}

}  // namespace
}  // namespace meshtest::runtime
