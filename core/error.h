// Error types shared by every module: each carries where it came from
// (a file position, an op, a chip) so messages can be precise.
#pragma once

#include <stdexcept>
#include <string>

namespace meshtest {

// Base for every error meshtest raises on purpose. `context()` chains
// "while ..." notes added as the error travels up (see with_context).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Input that violates a documented format (YAML, IR text, CLI arguments).
class ParseError : public Error {
 public:
  using Error::Error;
};

// A graph that fails verification or cannot be compiled; names the op.
class CompileError : public Error {
 public:
  using Error::Error;
};

// A failure while executing on the (simulated) device; names chip and op.
class RuntimeError : public Error {
 public:
  using Error::Error;
};

// Device memory exhausted (compile-time plan or run-time allocation).
class OutOfMemoryError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

}  // namespace meshtest
