// The per-op check's samples (element_sample.h, row_sample.h) and what a
// sampled check still catches: every window of a large tensor holds one run,
// with the first and last elements always kept; a broadcast operand is
// gathered at the elements each sampled result element read; the reference
// of a narrowed linear, matmul, conv2d (a band of rows, or channels of a
// small map) and max_pool2d is the whole op's reference at the kept
// elements; every conv row is in some op's band; and a large elementwise op
// checked on its sample still fails a wrong scale and a wrong last vector,
// while the report (every element) also names a single wrong element.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/dtype.h"
#include "core/rng.h"
#include "runner/pipeline/element_sample.h"
#include "runner/pipeline/op_check.h"
#include "runner/pipeline/op_golden.h"
#include "runner/pipeline/row_sample.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {
namespace {

TEST(ElementSample, SmallTensorsAreWhole) {
  const std::vector<SampleRun> runs = sample_runs(kSampleAbove);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, 0);
  EXPECT_EQ(runs[0].length, kSampleAbove);
  EXPECT_EQ(sample_size(kSampleAbove), kSampleAbove);
}

TEST(ElementSample, EveryWindowHoldsOneRunAndBothEndsAreKept) {
  for (const int64_t n : {kSampleAbove + 1, 3 * kSampleAbove + 77, int64_t{1} << 20}) {
    const std::vector<SampleRun> runs = sample_runs(n);
    ASSERT_EQ(static_cast<int64_t>(runs.size()), (n + kSampleWindow - 1) / kSampleWindow) << n;
    int64_t total = 0;
    std::set<int64_t> places;
    for (size_t w = 0; w < runs.size(); ++w) {
      const int64_t window = static_cast<int64_t>(w) * kSampleWindow;
      EXPECT_GE(runs[w].start, window);
      EXPECT_LE(runs[w].start + runs[w].length, std::min(n, window + kSampleWindow));
      EXPECT_EQ(runs[w].length, std::min(kSampleRun, n - window));
      total += runs[w].length;
      places.insert(runs[w].start - window);
    }
    EXPECT_EQ(runs.front().start, 0);
    EXPECT_EQ(runs.back().start + runs.back().length, n);
    EXPECT_EQ(total, sample_size(n));
    EXPECT_GE(places.size(), static_cast<size_t>(kSampleWindow / kSampleRun)) << "every place in a window is used";
  }
}

// The operand element a result element at flat index i read (numpy broadcasting).
float broadcast_element(const Tensor& operand, const Shape& shape, int64_t i) {
  int64_t offset = 0, step = 1;
  for (int64_t a = static_cast<int64_t>(shape.size()) - 1, b = operand.rank() - 1; a >= 0; --a, --b) {
    const int64_t index = i % shape[static_cast<size_t>(a)];
    i /= shape[static_cast<size_t>(a)];
    if (b < 0) continue;
    if (operand.dim(b) != 1) offset += index * step;
    step *= operand.dim(b);
  }
  return operand.data<float>()[offset];
}

TEST(ElementSample, ABroadcastOperandIsGatheredAtTheElementsEachResultElementRead) {
  const Shape shape{2, 64, 56, 56};
  const std::vector<SampleRun> runs = sample_runs(shape_numel(shape));
  for (const Shape& operand_shape : std::vector<Shape>{shape, {1, 64, 1, 1}, {56}, {}, {2, 1, 56, 1}, {64, 56, 1}}) {
    const Tensor operand = random_normal(operand_shape, 11);
    const Tensor gathered = gather_broadcast_sample(operand, shape, runs);
    ASSERT_EQ(gathered.numel(), sample_size(shape_numel(shape)));
    int64_t s = 0;
    bool all = true;
    for (const SampleRun& r : runs) {
      for (int64_t i = r.start; i < r.start + r.length; ++i, ++s) {
        all = all && gathered.data<float>()[s] == broadcast_element(operand, shape, i);
      }
    }
    EXPECT_TRUE(all) << shape_to_string(operand_shape);
  }
}

Attrs pairs(std::vector<std::pair<std::string, std::vector<int64_t>>> values) {
  Attrs attrs;
  for (auto& [name, v] : values) attrs.set(name, v);
  return attrs;
}

struct SampledOp {
  std::string name;
  OpKind kind;
  Attrs attrs;
  std::vector<Tensor> operands;
};

// The whole op's reference stands for the device result: a sample's
// reference must be that result at the kept elements.
TEST(RowSample, ASampledOpsReferenceIsTheWholeReferenceAtTheKeptElements) {
  const std::vector<SampledOp> ops = {
      {"linear", OpKind::Linear, {}, {random_normal({2, 128, 64}, 1), random_normal({96, 64}, 2), random_normal({96}, 3)}},
      {"matmul", OpKind::Matmul, {}, {random_normal({3, 128, 32}, 4), random_normal({3, 32, 40}, 5)}},
      {"conv 3x3 s1 p1", OpKind::Conv2d, pairs({{"stride", {1, 1}}, {"padding", {1, 1}}}),
       {random_normal({2, 8, 64, 40}, 6), random_normal({16, 8, 3, 3}, 7), random_normal({16}, 8)}},
      {"conv 7x7 s2 p3", OpKind::Conv2d, pairs({{"stride", {2, 2}}, {"padding", {3, 3}}}),
       {random_normal({1, 3, 90, 70}, 9), random_normal({8, 3, 7, 7}, 10)}},
      {"conv 3x3 s1 p2 d2 depthwise", OpKind::Conv2d,
       pairs({{"stride", {1, 1}}, {"padding", {2, 2}}, {"dilation", {2, 2}}}),
       {random_normal({1, 16, 40, 40}, 11), random_normal({16, 1, 3, 3}, 12)}},
      {"conv 1x1 small map (channels)", OpKind::Conv2d, {},
       {random_normal({1, 64, 14, 14}, 13), random_normal({128, 64, 1, 1}, 14)}},
      {"max_pool2d", OpKind::MaxPool2d, pairs({{"kernel", {3, 3}}, {"stride", {2, 2}}, {"padding", {1, 1}}}),
       {random_normal({1, 64, 40, 40}, 15)}},
  };
  for (const SampledOp& t : ops) {
    Attrs attrs = t.attrs;
    if (t.kind == OpKind::Conv2d) attrs.set("groups", int64_t{t.name.find("depthwise") != std::string::npos ? 16 : 1});
    DeviceInstr instr{t.kind, {}, -1, attrs, "op #1 " + t.name, {}};
    const Tensor whole = runtime::run_reference_op(Op{t.kind, {}, kNoValue, attrs}, t.operands);
    for (size_t index : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{17}}) {
      const std::optional<RowSample> sample = sample_rows(instr, index, 0, t.operands, whole);
      ASSERT_TRUE(sample.has_value()) << t.name;
      EXPECT_LT(sample->result.numel(), whole.numel()) << t.name;
      EXPECT_GT(sample->kept, 0) << t.name;
      const Tensor reference =
          runtime::run_reference_op(Op{t.kind, {}, kNoValue, sample->attrs.value_or(attrs)}, sample->operands);
      ASSERT_EQ(reference.shape(), sample->result.shape()) << t.name;
      double worst = 0.0;
      for (int64_t i = 0; i < reference.numel(); ++i) {
        const double d = sample->result.data<float>()[i], r = reference.data<float>()[i];
        worst = std::max(worst, std::abs(d - r) / (1.0 + std::abs(r)));
      }
      EXPECT_LT(worst, 1e-5) << t.name << " op " << index;
    }
  }
}

TEST(RowSample, EveryConvRowIsInSomeOpsBandAndTheEdgesOften) {
  const Attrs attrs = pairs({{"stride", {1, 1}}, {"padding", {1, 1}}});
  DeviceInstr instr{OpKind::Conv2d, {}, -1, attrs, "op #1 conv2d", {}};
  const std::vector<Tensor> operands{random_normal({1, 4, 56, 8}, 1), random_normal({4, 4, 3, 3}, 2)};
  const Tensor whole = runtime::run_reference_op(Op{OpKind::Conv2d, {}, kNoValue, attrs}, operands);
  std::vector<int> seen(56, 0);
  constexpr int kOps = 200;
  for (size_t index = 0; index < kOps; ++index) {
    const std::optional<RowSample> sample = sample_rows(instr, index, 0, operands, whole);
    ASSERT_TRUE(sample.has_value());
    // The band's rows: the sample's planes are rows of the whole result.
    const int64_t rows = sample->result.dim(2);
    for (int64_t first = 0; first + rows <= 56; ++first) {
      if (std::equal(sample->result.data<float>(), sample->result.data<float>() + rows * 8,
                     whole.data<float>() + first * 8)) {
        for (int64_t r = first; r < first + rows; ++r) ++seen[static_cast<size_t>(r)];
        break;
      }
    }
  }
  for (int r = 0; r < 56; ++r) EXPECT_GT(seen[static_cast<size_t>(r)], 0) << "row " << r;
  EXPECT_GT(seen.front(), kOps / 8) << "the top row (padding read) in about a quarter of the ops";
  EXPECT_GT(seen.back(), kOps / 8) << "the bottom row in about a quarter of the ops";
}

TEST(RowSample, TheDrawKeepsOneRowInEveryGroupOfSixteenAndAFewOfASmallOp) {
  for (const int64_t extent : {int64_t{40}, int64_t{64}, int64_t{100}, int64_t{4096}}) {
    const int64_t every = std::min(kRowSampleEvery, std::max<int64_t>(1, extent / kMinKeptRows));
    std::set<int64_t> places;
    for (size_t op = 0; op < 50; ++op) {
      for (int64_t group = 0; group * every < extent; ++group) {
        int64_t kept = 0;
        for (int64_t i = group * every; i < std::min(extent, (group + 1) * every); ++i) {
          if (in_row_sample(i, extent, op, 0)) {
            ++kept;
            places.insert(i - group * every);
          }
        }
        EXPECT_LE(kept, 1) << extent;
        if ((group + 1) * every <= extent) {
          EXPECT_EQ(kept, 1) << extent << " group " << group;
        }
      }
    }
    EXPECT_EQ(static_cast<int64_t>(places.size()), every) << "every place in a group is drawn: " << extent;
  }
}

// An honest bf16 add with a per-channel operand, as the device would make it.
struct LargeAdd {
  DeviceInstr instr{OpKind::Add, {}, -1, {}, "op #3 add", {}};
  Tensor a = random_normal({1, 64, 56, 56}, 21, 0.0f, 1.0f, DType::BF16);
  Tensor b = random_normal({1, 64, 1, 1}, 22, 0.0f, 1.0f, DType::BF16);
  Tensor result = runtime::run_reference_op(Op{OpKind::Add, {}, kNoValue, {}}, {a.to(DType::F32), b.to(DType::F32)})
                      .to(DType::BF16);
  OpGoldenRow check(bool every_element) {
    OpThresholds thresholds;
    thresholds.every_element = every_element;
    ConversionCache cache(size_t{64} << 20);
    return check_op(OpToCheck{0, 9, &instr, "", {a, b}, result}, thresholds, cache);
  }
  void scale(int64_t first, int64_t count, float factor) {
    uint16_t* p = result.data<uint16_t>();
    for (int64_t i = first; i < first + count; ++i) p[i] = f32_to_bf16(bf16_to_f32(p[i]) * factor);
  }
};

TEST(SampledCheck, AnHonestLargeOpPassesOnItsSample) {
  LargeAdd add;
  const OpGoldenRow sampled = add.check(false);
  EXPECT_FALSE(sampled.past) << describe_row(sampled);
  EXPECT_EQ(sampled.sampled, sample_size(add.result.numel()));
  const OpGoldenRow whole = add.check(true);
  EXPECT_FALSE(whole.past) << describe_row(whole);
  EXPECT_EQ(whole.sampled, 0);
}

TEST(SampledCheck, AWrongScaleAndAWrongLastVectorFailOnTheSample) {
  LargeAdd scaled;
  scaled.scale(0, scaled.result.numel(), 1.01f);
  EXPECT_TRUE(scaled.check(false).past);
  LargeAdd tail;  // the kernel's last vector: 7 elements 5% off
  tail.scale(tail.result.numel() - 7, 7, 1.05f);
  const OpGoldenRow row = tail.check(false);
  EXPECT_TRUE(row.past) << describe_row(row);
  EXPECT_NE(describe_row(row).find("on a sample of"), std::string::npos) << describe_row(row);
  LargeAdd head;  // and the first
  head.scale(0, 7, 1.05f);
  EXPECT_TRUE(head.check(false).past);
}

TEST(SampledCheck, TheReportComparesEveryElement) {
  // A single wrong element beside the sampled run of a window in the middle.
  LargeAdd one;
  const std::vector<SampleRun> runs = sample_runs(one.result.numel());
  const size_t w = runs.size() / 2;
  const int64_t window_end = static_cast<int64_t>(w + 1) * kSampleWindow;
  const SampleRun& r = runs[w];
  const int64_t outside = r.start + r.length + 100 < window_end ? r.start + r.length + 100 : r.start - 100;
  one.scale(outside, 1, 1.5f);
  EXPECT_TRUE(one.check(true).past);
  // The sample's limit, as documented: an error this sparse is outside it.
  EXPECT_FALSE(one.check(false).past);
}

}  // namespace
}  // namespace meshtest::runner
