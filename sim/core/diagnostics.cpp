#include "sim/core/diagnostics.hpp"

#include <fmt/format.h>

namespace clustersim {
namespace {
std::string join(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) {
    if (!out.empty()) out += '\n';
    out += d.to_string();
  }
  return out;
}
}  // namespace

// Control bytes of the input quoted in a message (a NUL inside a pipeline layout string) are written as
// \xNN: printed raw, a NUL cut the message short at the C-string boundary ("error: ...: \"Et*4|" and
// nothing after it), and an escape sequence would reach the terminal. Newlines and tabs stay.
std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string Diagnostic::to_string() const {
  const std::string where = printable(pointer.empty() ? "/" : pointer);
  if (file.empty()) return fmt::format("{}: {}", where, printable(message));
  return fmt::format("{}:{}: {}", printable(file), where, printable(message));
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

ConfigError::ConfigError(std::string file, std::string pointer, std::string message)
    : ConfigError(std::vector<Diagnostic>{{std::move(file), std::move(pointer), std::move(message)}}) {}

void Diagnostics::add(std::string file, std::string pointer, std::string message) {
  items_.push_back({std::move(file), std::move(pointer), std::move(message)});
}

void Diagnostics::merge(const ConfigError& e) {
  for (const auto& d : e.diagnostics()) items_.push_back(d);
}

void Diagnostics::throw_if_any() const {
  if (!items_.empty()) throw ConfigError(items_);
}

std::string member_path(std::string_view parent, std::string_view member) {
  if (parent.empty()) return std::string(member);
  if (member.empty()) return std::string(parent);
  std::string out(parent);
  if (member.front() != '[') out += '.';
  out += member;
  return out;
}

void append_under(std::vector<FieldProblem>& out, std::string_view parent,
                  std::vector<FieldProblem> problems) {
  for (FieldProblem& p : problems) out.push_back({member_path(parent, p.field), std::move(p.message)});
}

namespace {
std::string join(const std::vector<FieldProblem>& ps) {
  std::string out;
  for (const auto& p : ps) {
    if (!out.empty()) out += '\n';
    out += fmt::format("{}: {}", p.field.empty() ? "(value)" : p.field, p.message);
  }
  return out;
}
}  // namespace

SpecError::SpecError(std::vector<FieldProblem> problems)
    : std::invalid_argument(join(problems)), problems_(std::move(problems)) {}

SpecError::SpecError(std::string field, std::string message)
    : SpecError(std::vector<FieldProblem>{{std::move(field), std::move(message)}}) {}

void fail_assertion(const char* expr, const char* file, int line, const std::string& what) {
  throw InternalError(fmt::format("internal error at {}:{}: {} ({})", file, line, what, expr));
}

}  // namespace clustersim
