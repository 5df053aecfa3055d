// Batch norm with torchvision parameter names: <prefix>.weight, <prefix>.bias
// (parameters) and <prefix>.running_mean, <prefix>.running_var (buffers), all
// [C]. num_batches_tracked is a training-only counter and is not created.
//
// Two forms, as PyTorch's model.eval() / model.train():
//  - inference (LayerContext::training false): one batch_norm op normalising
//    with the running statistics.
//  - training: the same batch_norm op fed the batch statistics over N, H, W
//    (mean, and the biased variance, as PyTorch normalises), composed from
//    reduce_sum so that autodiff and the reference backward differentiate
//    through them (the input gradient of batch-statistics BN) and so that on a
//    batch-split mesh the sums meet in all_reduce: statistics over the global
//    batch, i.e. SyncBatchNorm (docs/how-to/training.md). The running
//    statistics are updated with momentum kBatchNormMomentum (the variance
//    unbiased, n / (n - 1), as PyTorch) and returned as extra outputs
//    sdk::kUpdatedBufferPrefix + "<prefix>.running_mean" / "running_var";
//    nothing routes them into the model's output, so they get no gradient.
#pragma once

#include <string>

#include "models/common/init.h"
#include "models/common/layer_context.h"

namespace meshtest::models {

// PyTorch's default BatchNorm2d momentum: new = (1 - m) * running + m * batch.
inline constexpr double kBatchNormMomentum = 0.1;

// Defaults look like a trained network's parameters and statistics rather
// than a fresh one's (weight 1, bias 0, mean 0, var 1 would make batch_norm an
// identity and hide kernel bugs).
struct BatchNormInit {
  Initializer weight = init::norm_gain();
  Initializer bias = init::norm_shift();
  Initializer running_mean = init::normal(0.0, 0.1);
  Initializer running_var = init::uniform(0.5, 1.5);
  double eps = 1e-5;
};

// x [N,C,H,W]; the form follows ctx.training. Training form throws
// CompileError when N*H*W is 1 (no variance to take, as PyTorch refuses).
ValueId batch_norm(LayerContext& ctx, const std::string& prefix, ValueId x, const BatchNormInit& init = {});

}  // namespace meshtest::models
