// OpTable: what one module does with each op (a kernel, a VJP rule, a
// sharding rule...), keyed by OpKind. Every entry is either an
// implementation or an explicit, stated reason why the op has none
// ("collectives are made after autodiff"); an op with neither is unlisted,
// which tests/compiler/op_coverage_test.cpp reports as a failure.
//
// Each module builds its own tables in one visible function (no static
// registration), so core never sees compiler/ or runtime/ code.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops.h"

namespace meshtest {

template <class Impl>
class OpTable {
 public:
  // `what` names the table in coverage reports ("device kernel").
  explicit OpTable(std::string_view what) : what_(what), entries_(static_cast<size_t>(kLastOp) + 1) {}

  OpTable& set(OpKind kind, Impl impl) {
    entry(kind) = Entry{std::move(impl), {}};
    return *this;
  }
  OpTable& set(const std::vector<OpKind>& kinds, const Impl& impl) {
    for (OpKind kind : kinds) set(kind, impl);
    return *this;
  }
  OpTable& set(std::initializer_list<OpKind> kinds, const Impl& impl) {
    for (OpKind kind : kinds) set(kind, impl);
    return *this;
  }
  // The op deliberately has no implementation here, for `reason`.
  OpTable& none(std::initializer_list<OpKind> kinds, std::string_view reason) {
    for (OpKind kind : kinds) entry(kind) = Entry{std::nullopt, std::string(reason)};
    return *this;
  }
  OpTable& none(const std::vector<OpKind>& kinds, std::string_view reason) {
    for (OpKind kind : kinds) entry(kind) = Entry{std::nullopt, std::string(reason)};
    return *this;
  }

  // The implementation of `kind`, or nullptr (no entry, or a stated reason).
  const Impl* find(OpKind kind) const {
    const std::optional<Entry>& e = entries_[static_cast<size_t>(kind)];
    return e && e->impl ? &*e->impl : nullptr;
  }
  bool listed(OpKind kind) const { return entries_[static_cast<size_t>(kind)].has_value(); }
  // Why `kind` has no implementation ("" when it has one or is unlisted).
  std::string_view reason(OpKind kind) const {
    const std::optional<Entry>& e = entries_[static_cast<size_t>(kind)];
    return e ? std::string_view(e->reason) : std::string_view();
  }
  std::string_view what() const { return what_; }

 private:
  struct Entry {
    std::optional<Impl> impl;
    std::string reason;
  };
  std::optional<Entry>& entry(OpKind kind) { return entries_[static_cast<size_t>(kind)]; }

  std::string what_;
  std::vector<std::optional<Entry>> entries_;
};

}  // namespace meshtest
