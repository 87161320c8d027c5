// User-input diagnostics: every problem found in an experiment, each naming its file and JSON pointer.
//
// sim/config collects Diagnostic records and throws one ConfigError carrying all of them; the CLI
// prints one line per diagnostic (`file.json:/parallelism/tp: 3 does not divide ...`) and exits 2.
//
// Layers below sim/config know no JSON: their validate() functions return FieldProblems that name the
// member of the C++ value they checked ("radix", "oversubscription[1]", "checkpoint.interval"), and
// sim/config, which knows where it read each value, turns them into Diagnostics (docs/configuration.md,
// "Errors").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

/// `text` with control bytes (below 0x20 except newline and tab, and 0x7f) written as \xNN, for echoing
/// input text (names, ids, layout strings) on a terminal: a NUL would cut the line, an escape sequence
/// would reach the terminal.
std::string printable(const std::string& text);

struct Diagnostic {
  std::string file;     // path of the file the value came from ("<command line>" for --set)
  std::string pointer;  // RFC 6901 JSON pointer inside that file, "" for the whole document
  std::string message;  // what was received and what was expected

  [[nodiscard]] std::string to_string() const;
};

/// A problem with one member of a spec value, found by that value's own checks. `field` is the member's
/// path in C++ terms, relative to the value validated: members joined by '.', elements as "[i]"
/// ("radix", "oversubscription[1]", "mesh[3].lanes", "checkpoint.interval"); "" is the value as a whole.
/// Each validate() documents the paths it reports.
struct FieldProblem {
  std::string field;
  std::string message;

  friend bool operator==(const FieldProblem&, const FieldProblem&) = default;
};

/// "a" + "b" -> "a.b"; "a" + "[2]" -> "a[2]"; "" + "b" -> "b"; "a" + "" -> "a".
std::string member_path(std::string_view parent, std::string_view member);

/// Appends `problems` to `out`, each field placed below member `parent` (member_path(parent, field)).
void append_under(std::vector<FieldProblem>& out, std::string_view parent,
                  std::vector<FieldProblem> problems);

/// A spec value that fails a check only its consumer can make, at run time (e.g. a checkpoint interval
/// shorter than the write time the step model computes), or a value handed over without the checks its
/// contract requires. Carries the problems by member path; the caller that knows where the value was
/// read (sim/config, through the report or the CLI) turns them into Diagnostics.
class SpecError : public std::invalid_argument {
 public:
  explicit SpecError(std::vector<FieldProblem> problems);
  SpecError(std::string field, std::string message);
  [[nodiscard]] const std::vector<FieldProblem>& problems() const { return problems_; }

 private:
  std::vector<FieldProblem> problems_;
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
