# The allowed include directions between meshtest's modules (DESIGN.md §2,
# docs/architecture.md). A module is a folder, or one file that is a layer of
# its own (the loader SDK header keeps its installed path inside discovery/);
# a file belongs to the longest module that names it or a folder above it. A
# module may include its own headers and those of the modules listed for it,
# nothing else; `*` allows every module. tests/architecture checks every
# #include "..." in the tree against this table.
set(MESHTEST_MODULES
  core comparators compiler/autodiff.h compiler/sharding.h compiler
  runtime/reference runtime/device runtime/arch runtime/mesh
  codegen backend discovery/loader_sdk.h frontends pjrt discovery config reports
  runner/collection runner/pipeline runner/engine runner/cli
  models bench tests)

set(MESHTEST_MODULE_DEPS_core "")
set(MESHTEST_MODULE_DEPS_comparators core)
set(MESHTEST_MODULE_DEPS_compiler core compiler/autodiff.h compiler/sharding.h)
# Two graph-level parts of the compiler that say what a case computes, which
# the runner's golden needs: the training graph (autodiff) and how a split
# program's outputs come out (sharding propagation). The rest of the compiler
# (options, passes, cache) is the simulated chip's, behind backend/.
set(MESHTEST_MODULE_DEPS_compiler/autodiff.h core)
set(MESHTEST_MODULE_DEPS_compiler/sharding.h core)
set(MESHTEST_MODULE_DEPS_runtime/reference core)
set(MESHTEST_MODULE_DEPS_runtime/device core)
set(MESHTEST_MODULE_DEPS_runtime/arch core runtime/device)
set(MESHTEST_MODULE_DEPS_runtime/mesh core runtime/device)
set(MESHTEST_MODULE_DEPS_codegen core)
set(MESHTEST_MODULE_DEPS_backend core codegen compiler compiler/autodiff.h compiler/sharding.h runtime/reference runtime/device runtime/mesh)
set(MESHTEST_MODULE_DEPS_discovery/loader_sdk.h core)
set(MESHTEST_MODULE_DEPS_frontends core runtime/reference discovery/loader_sdk.h)
set(MESHTEST_MODULE_DEPS_pjrt core codegen compiler compiler/autodiff.h compiler/sharding.h runtime/reference runtime/device runtime/arch runtime/mesh backend
    discovery/loader_sdk.h frontends)
set(MESHTEST_MODULE_DEPS_discovery core discovery/loader_sdk.h frontends)
set(MESHTEST_MODULE_DEPS_config "")
set(MESHTEST_MODULE_DEPS_reports core config comparators)
set(MESHTEST_MODULE_DEPS_runner/collection core config discovery/loader_sdk.h discovery)
set(MESHTEST_MODULE_DEPS_runner/pipeline core comparators compiler/autodiff.h compiler/sharding.h runtime/reference runtime/device runtime/arch
    runtime/mesh codegen backend discovery/loader_sdk.h frontends pjrt discovery config reports runner/collection)
set(MESHTEST_MODULE_DEPS_runner/engine core reports runner/collection runner/pipeline)
set(MESHTEST_MODULE_DEPS_runner/cli core comparators compiler/autodiff.h compiler/sharding.h runtime/reference runtime/device runtime/arch
    runtime/mesh codegen backend discovery/loader_sdk.h frontends pjrt discovery config reports runner/collection
    runner/pipeline runner/engine)
set(MESHTEST_MODULE_DEPS_models core discovery/loader_sdk.h discovery)
set(MESHTEST_MODULE_DEPS_bench "*")
set(MESHTEST_MODULE_DEPS_tests "*")
