// `mhlo.sharding` on entry arguments as a meshtest shard spec: the GSPMD
// forms `{replicated}`, `{devices=[t0,t1,...]<=[N]}` and the transposed iota
// `{devices=[t0,...]<=[m0,m1,...]T(p0,p1,...)}` (each optionally with
// ` last_tile_dim_replicate`) express a split of each tensor dim over mesh
// axes. The mesh, axes named "axis0", "axis1", ..., is the reshape dims of a
// transposed iota (m0, m1, ...) where an argument has one — the form the
// writer gives a split that takes axes out of mesh order — else the finest
// split any argument's tiles give (each tile larger than one an axis); each
// tile takes the next mesh axes in the argument's device order whose sizes
// multiply to it. Every sharded argument must walk the same mesh. Other
// forms (explicit device lists, `maximal`, `manual`) express no meshtest
// spec: then no spec is given.
//
// Shardy's `sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {"y", "z"}]>`
// names the mesh axes of each dim directly; the mesh is the module's
// `sdy.mesh @mesh = <["x"=2, "y"=4, ...]>`, its axes and sizes as they are.
// Open dims (`?`), sub-axes (`"x":(1)2`) and priorities express no meshtest
// spec. Arguments of one program use one kind (mhlo or sdy) and one mesh.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "discovery/loader_sdk.h"
#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo {

// Reads the `mhlo.sharding` of each (input name, argument attributes) into
// `spec` and `mesh`; leaves both empty when some argument's sharding cannot
// be expressed or the arguments disagree on the mesh.
// `module` gives the sdy.mesh definitions.
void collect_shardings(const Module& module, const std::vector<std::pair<std::string, NamedAttrs>>& args,
                       sdk::ShardSpec& spec, sdk::MeshConfig& mesh);

// One GSPMD iota sharding string: the tile dims (one per tensor dim, plus
// the replicated last one when present), the iota's reshape dims and its
// transpose (identity when none is written). `{replicated}` has no tiles.
struct IotaTiling {
  std::vector<int64_t> tiles;
  std::vector<int64_t> reshape;    // `<=[8]` -> {8}; `<=[4,2]T(1,0)` -> {4, 2}
  std::vector<int64_t> transpose;  // {1, 0}; identity when not written
  bool replicate_last = false;
};
// nullopt when the text is not an iota tiling (or its counts disagree).
std::optional<IotaTiling> parse_iota_tiling(const std::string& text);

}  // namespace meshtest::frontends::stablehlo
