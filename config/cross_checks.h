// The checks that need to know which cases exist (discovery): test ids that
// match no discovered case (stale or misspelt), and placeholders for models
// that now have a loader. Plain strings in, so config stays independent of
// discovery.
#pragma once

#include <string>
#include <vector>

#include "config/diagnostic.h"
#include "config/test_config.h"

namespace meshtest::config {

// A discovered model, by the names a placeholder could use for it.
struct KnownModel {
  std::string loader_dir;  // "llama/causal_lm/native"
  std::string model;       // "llama"
  std::string variant;     // "llama_3_2_1b"
};

// "test id 'x' matches no discovered case (nearest: 'y')" for every stale id.
void check_stale_ids(const TestConfig& config, const std::vector<std::string>& case_ids, Severity severity,
                     std::vector<Diagnostic>& out);

// "placeholder 'x' duplicates the discovered model 'dir-variant' ..." when
// a placeholder's name (or its last '/' part), compared as lower-case letters
// and digits only, is a discovered model's variant, model or folder.
void check_placeholders(const TestConfig& config, const std::vector<KnownModel>& models, Severity severity,
                        std::vector<Diagnostic>& out);

}  // namespace meshtest::config
