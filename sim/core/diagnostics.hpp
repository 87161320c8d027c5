// User-input diagnostics: every problem found in an experiment, each naming its file and JSON pointer.
//
// Library code collects Diagnostic records and throws one ConfigError carrying all of them; the CLI
// prints one line per diagnostic (`file.json:/parallelism/tp: 3 does not divide ...`) and exits 2.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace clustersim {

struct Diagnostic {
  std::string file;     // path of the file the value came from ("<command line>" for --set)
  std::string pointer;  // RFC 6901 JSON pointer inside that file, "" for the whole document
  std::string message;  // what was received and what was expected

  [[nodiscard]] std::string to_string() const;
};

/// Bad user input. Holds every diagnostic found, in the order found.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  ConfigError(std::string file, std::string pointer, std::string message);
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

/// Accumulates diagnostics while a document is read; `throw_if_any()` raises them together.
class Diagnostics {
 public:
  void add(std::string file, std::string pointer, std::string message);
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void merge(const ConfigError& e);
  [[nodiscard]] bool empty() const { return items_.empty(); }
  [[nodiscard]] std::size_t size() const { return items_.size(); }
  [[nodiscard]] const std::vector<Diagnostic>& items() const { return items_; }
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> items_;
};

/// An internal invariant was violated (a bug in clustersim, not in the input). Carries file:line.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_assertion(const char* expr, const char* file, int line, const std::string& what);

}  // namespace clustersim

/// Checks an internal invariant; throws InternalError with file:line when it does not hold.
#define CS_ASSERT(expr, what) \
  ((expr) ? static_cast<void>(0) : ::clustersim::fail_assertion(#expr, __FILE__, __LINE__, (what)))
