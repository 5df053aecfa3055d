# The allowed include directions between meshtest's modules (DESIGN.md §2,
# docs/architecture.md). A module is a folder; a file belongs to the longest
# module path that prefixes it. A module may include its own headers and those
# of the modules listed for it, nothing else; `*` allows every module.
# tests/architecture checks every #include "..." in the tree against this table.
set(MESHTEST_MODULES
  core comparators compiler
  runtime/reference runtime/device runtime/arch runtime/mesh
  discovery config reports runner models bench tests)

set(MESHTEST_MODULE_DEPS_core "")
set(MESHTEST_MODULE_DEPS_comparators core)
set(MESHTEST_MODULE_DEPS_compiler core)
set(MESHTEST_MODULE_DEPS_runtime/reference core)
set(MESHTEST_MODULE_DEPS_runtime/device core)
set(MESHTEST_MODULE_DEPS_runtime/arch core runtime/device)
set(MESHTEST_MODULE_DEPS_runtime/mesh core runtime/device)
set(MESHTEST_MODULE_DEPS_discovery core)
set(MESHTEST_MODULE_DEPS_config "")
set(MESHTEST_MODULE_DEPS_reports core config)
set(MESHTEST_MODULE_DEPS_runner core comparators compiler runtime/reference runtime/device runtime/arch runtime/mesh
    discovery config reports)
set(MESHTEST_MODULE_DEPS_models core discovery)
set(MESHTEST_MODULE_DEPS_bench "*")
set(MESHTEST_MODULE_DEPS_tests "*")
