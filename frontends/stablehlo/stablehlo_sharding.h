// `mhlo.sharding` on entry arguments as a meshtest shard spec: the GSPMD
// forms `{replicated}` and `{devices=[t0,t1,...]<=[N]}` (an iota device
// order, optionally with ` last_tile_dim_replicate`) express a split of each
// tensor dim over mesh axes. The mesh is the tile dims larger than one, in
// order, named "axis0", "axis1", ...; every sharded argument must tile over
// the same mesh. Other forms (explicit device lists, transposed iotas,
// `maximal`, `manual`) express no meshtest spec: then no spec is given.
//
// Shardy's `sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {"y", "z"}]>`
// names the mesh axes of each dim directly; the mesh is the module's
// `sdy.mesh @mesh = <["x"=2, "y"=4, ...]>`, its axes and sizes as they are.
// Open dims (`?`), sub-axes (`"x":(1)2`) and priorities express no meshtest
// spec. Arguments of one program use one kind (mhlo or sdy) and one mesh.
#pragma once

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

// One GSPMD sharding string for a tensor of `rank`: the tile dims (rank
// entries, plus the replicated last one when present) or false when the form
// is not an iota tiling; `{replicated}` gives all ones.
bool parse_iota_tiling(const std::string& text, size_t rank, std::vector<int64_t>& tiles);

}  // namespace meshtest::frontends::stablehlo
