// Mutation testing: the catalogue of deliberate device and compiler bugs
// ("mutants") and the one test-only switch that turns one of them on.
//
// The switch is the environment variable MESHTEST_MUTANT=<id>, read once when
// libmeshtest_core loads; it is part of every build (Release included) and
// off unless set. An unknown id is never ignored: check_mutant_environment()
// throws an Error listing the known ids, and the chip, the mesh and the
// compiler call it before they run anything.
//
// This file holds only the data (id, class, target, one-line description)
// and the switch; each mutant's behaviour lives in the module that owns the
// code it breaks: device kernels and bf16/bfp8_b conversions in
// runtime/device (device_mutants.cpp), the bfp8_b weight encoder in
// compiler/lower.cpp, collectives in runtime/mesh, passes in
// compiler/passes (decompose, fuse, const-eval), VJP rules in
// compiler/autodiff. `meshtest mutate` runs a selection once per mutant and
// scores it per class.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/ops.h"

namespace meshtest {

constexpr const char* kMutantEnv = "MESHTEST_MUTANT";

// One value per catalogued mutant, in catalogue order.
enum class MutantId : uint8_t {
  None,
  GeluScale1,
  GeluScale5,
  SoftmaxScale1,
  SoftmaxScale5,
  LinearScale1,
  LinearScale5,
  MatmulScale1,
  MatmulScale5,
  Conv2dScale1,
  Conv2dScale5,
  SiluScale1,
  SiluScale5,
  LayerNormScale1,
  LayerNormScale5,
  RmsNormScale5,
  GlobalAvgPoolScale5,
  LinearBiasIgnored,
  Conv2dBiasIgnored,
  LayerNormBetaIgnored,
  LayerNormGammaIgnored,
  BatchNormMeanIgnored,
  GeluTanhForExact,
  SoftmaxTemperature,
  LayerNormVarianceUnbiased,
  ReluLeaky,
  SdpaMaskDropped,
  SdpaMaskTransposed,
  RopeTableOffByOne,
  ResidualAddDropped,
  SliceOffByOne,
  ConcatOffByOne,
  EmbeddingRowOffByOne,
  TopkMaskOneShort,
  SoftmaxWrongAxis,
  ReduceMeanWrongCount,
  Bf16Truncation,
  Bfp8ExponentShift,
  AllReduceOneChipShort,
  ReduceScatterOneChipShort,
  VjpSoftmaxScaled,
  VjpGeluTanhForm,
  VjpLayerNormNoMeanTerm,
  VjpMatmulTransposedOperand,
  // Issue 33's classes: each written from the class's description, in
  // several kernels, passes and collectives.
  RmsNormWeightIgnored,
  SdpaScaleIgnored,
  RmsNormMeanSubtracted,
  TanhHalfArgument,
  SdpaMaskRowOffByOne,
  SdpaScaleOneOverD,
  GqaKvHeadRotated,
  MaxPool2dWindowShifted,
  ReduceSumSkipsLast,
  ReduceSumBf16Accumulation,
  LinearBf16Accumulation,
  Conv2dBf16Accumulation,
  LayerNormBf16Statistics,
  SoftmaxBf16Accumulation,
  AllReduceBf16Accumulation,
  DivBf16Reciprocal,
  Bfp8EncoderTruncates,
  BatchNormShiftUsesGamma,
  BatchNormEpsWrong,
  FuseLayerNormGammaBetaSwapped,
  FuseSdpaDivisorAsScale,
  FuseGeluTanhMarkedExact,
  FuseRmsNormEpsDropped,
  ConstEvalTransposePermInverted,
  AllGatherChunkOrderRotated,
  ReduceScatterChunkMismatch,
  AllReduceMeanForSum,
  AllReduceOverWholeMesh,
  VjpSiluSigmoidOnly,
  VjpDivDenominatorSign,
  VjpReduceMeanUndivided,
  RsqrtFastApprox,
  LayerNormFastRsqrt,
  RmsNormFastRsqrt,
  SoftmaxApproxExp,
  GeluSigmoidApprox,
  SoftmaxNoMaxSubtraction,
  LayerNormEpsIgnored,
  LayerNormOnePassVariance,
  EmbeddingGradOverwrite,
  KvCacheWriteOneEarly,
  KvCacheStaleRow,
  KvCacheWrongHead,
  BatchNormRunningStatsInTraining,
  MatmulBf16Accumulation,
};

// Where a mutant's behaviour lives (the module that owns the broken code).
enum class MutantSite : uint8_t { DeviceKernel, DeviceNumerics, CompilerPass, Collective, VjpRule };
std::string_view mutant_site_name(MutantSite site);

struct MutantInfo {
  MutantId id;
  std::string_view name;          // MESHTEST_MUTANT value, e.g. "gelu_scale_1pct"
  std::string_view mutant_class;  // one of mutant_classes()
  MutantSite site;
  std::optional<OpKind> op;       // the op it breaks; none for dtype conversions
  std::string_view description;   // one line
};

// Every catalogued mutant (not None), in MutantId order.
std::span<const MutantInfo> mutant_catalogue();
// The classes of bug the catalogue covers ("scale", "param-ignored", ...,
// "decode"), in report order; every mutant's class is one of them.
std::span<const std::string_view> mutant_classes();
const MutantInfo& mutant_info(MutantId id);  // id != None
const MutantInfo* find_mutant(std::string_view name);
// "a, b, c": every catalogued name, for error messages.
std::string known_mutant_names();

namespace mutation_detail {
// The active mutant: MESHTEST_MUTANT at load time, or a ScopedMutant's.
extern MutantId active;
}  // namespace mutation_detail

// The active mutant (None when the switch is off). Cheap: inner loops may ask.
inline MutantId active_mutant() { return mutation_detail::active; }
inline bool mutant_active(MutantId id) { return mutation_detail::active == id; }
// The active mutant's name, "" when none.
std::string_view active_mutant_name();

// Throws Error naming the bad value and listing the known ids when
// MESHTEST_MUTANT was set to something that is not in the catalogue.
void check_mutant_environment();

// Test-only: makes `id` the active mutant for this object's lifetime
// (single-threaded test code, between executions).
class ScopedMutant {
 public:
  explicit ScopedMutant(MutantId id) : saved_(mutation_detail::active) { mutation_detail::active = id; }
  ~ScopedMutant() { mutation_detail::active = saved_; }
  ScopedMutant(const ScopedMutant&) = delete;
  ScopedMutant& operator=(const ScopedMutant&) = delete;

 private:
  MutantId saved_;
};

}  // namespace meshtest
