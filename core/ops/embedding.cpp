// Embedding lookups: embedding, and embedding_shard (one chip's part of a
// vocabulary-split embedding, made by the shard pass).
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType embedding_type(const std::vector<TensorType>& in, const OpAttrs&) {
  if (in[0].dtype != DType::I32 && in[0].dtype != DType::I64) fail("embedding ids must be i32 or i64");
  require_rank(in[1], 2, "embedding table");
  Shape out = in[0].shape;
  out.push_back(in[1].shape[1]);
  return {in[1].dtype, out};
}

TensorType embedding_shard_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  if (in[2].dtype != DType::I64 || checked_numel(in[2].shape) != 1) fail("embedding_shard start must be i64[1]");
  return embedding_type(in, attrs);
}

}  // namespace

std::vector<OpDef> embedding_ops() {
  return {
      {OpKind::Embedding, "embedding", OpFamily::Embedding, 2, 2, {}, embedding_type,
       "embedding(ids[...] i32/i64, table[V,D]) -> [..., D]; out-of-range id = error"},
      {OpKind::EmbeddingShard, "embedding_shard", OpFamily::Embedding, 3, 3, {}, embedding_shard_type,
       "embedding_shard(ids[...], table[Vs,D], start i64[1]) -> [..., D]: one chip's part of a vocabulary-split "
       "embedding: rows start..start+Vs-1 of the whole table are this chip's; ids outside them give zero rows "
       "(their chip adds them in the all_reduce that follows); negative ids = error"},
  };
}

}  // namespace meshtest::ops
