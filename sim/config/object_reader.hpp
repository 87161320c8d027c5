// Typed, diagnosing access to one JSON object of a configuration document.
//
// Every section reader (cluster, model, ..., and sections added later: run, energy, network, jobs) is
// written against this class, so that all of them report problems the same way:
//   - getters never throw: a problem is recorded in the ReadContext (file + JSON pointer + message) and
//     the getter returns its fallback, so one pass finds every problem of a document;
//   - `require_*` records "missing required key" when the key is absent;
//   - quantities are strings with units parsed by sim/core/unit_parse.hpp; a bare number is an error
//     that names the expected unit;
//   - every key asked for (present or not) is "known"; `finish()` reports every other key as unknown,
//     with a did-you-mean suggestion drawn from the known keys.
//
// Keys are taken as std::string_view and must outlive the reader (string literals in practice).
//
//   ObjectReader r(json, "/training", ctx);
//   int mb = r.require_integer("micro_batch", {.min = 1});
//   auto p = r.enumeration("precision", precision_names(), Precision::bf16);
//   r.finish();
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/read_context.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::config {

struct IntRange {
  std::int64_t min = std::numeric_limits<int>::min();
  std::int64_t max = std::numeric_limits<int>::max();
};

struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  // (min, max] instead of [min, max]
};

/// What a quantity may be: sizes, rates and durations are positive unless a key says otherwise.
enum class QuantityRule { positive, non_negative, any };

/// One spelling of an enum value; a table is a span of these.
template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

class ObjectReader {
 public:
  /// Reads the object `value` found at `pointer`. If it is not an object, one type error is recorded
  /// (unless a problem is already recorded there) and the reader is invalid: getters return fallbacks.
  ObjectReader(const nlohmann::json& value, std::string pointer, ReadContext& ctx);

  [[nodiscard]] bool valid() const { return object_ != nullptr; }
  [[nodiscard]] const std::string& pointer() const { return pointer_; }
  [[nodiscard]] std::string pointer_of(std::string_view key) const { return child_pointer(pointer_, key); }
  [[nodiscard]] ReadContext& context() const { return *ctx_; }

  /// True when `key` is present. Marks it known.
  bool has(std::string_view key);
  /// The raw value of `key` or nullptr. Marks it known.
  const nlohmann::json* find(std::string_view key);

  std::optional<std::int64_t> get_integer(std::string_view key, IntRange range = {});
  int integer(std::string_view key, int fallback, IntRange range = {});
  int require_integer(std::string_view key, IntRange range = {});

  std::optional<double> get_number(std::string_view key, NumberRange range = {});
  double number(std::string_view key, double fallback, NumberRange range = {});
  double require_number(std::string_view key, NumberRange range = {});

  std::optional<bool> get_boolean(std::string_view key);
  bool boolean(std::string_view key, bool fallback);

  std::optional<std::string> get_string(std::string_view key);
  std::string string(std::string_view key, std::string fallback);
  std::string require_string(std::string_view key);

  /// Index into `names` of the string value of `key`; unknown values list the allowed ones.
  std::optional<std::size_t> get_choice(std::string_view key, std::span<const std::string_view> names);

  template <class E>
  std::optional<E> get_enum(std::string_view key, std::span<const EnumName<E>> table) {
    std::vector<std::string_view> names;
    names.reserve(table.size());
    for (const auto& entry : table) names.push_back(entry.name);
    if (auto i = get_choice(key, names)) return table[*i].value;
    return std::nullopt;
  }
  template <class E>
  E enumeration(std::string_view key, std::span<const EnumName<E>> table, E fallback) {
    return get_enum(key, table).value_or(fallback);
  }
  template <class E>
  E require_enum(std::string_view key, std::span<const EnumName<E>> table, E fallback) {
    if (!present_or_missing(key)) return fallback;
    return enumeration(key, table, fallback);
  }

  /// A dimensioned string ("80 GiB") in SI units. Dimension::count also accepts a bare number.
  std::optional<double> get_quantity(std::string_view key, Dimension dimension,
                                     QuantityRule rule = QuantityRule::positive);
  template <class Q>
  Q quantity(std::string_view key, Dimension dimension, Q fallback,
             QuantityRule rule = QuantityRule::positive) {
    if (auto v = get_quantity(key, dimension, rule)) return Q(*v);
    return fallback;
  }
  template <class Q>
  Q require_quantity(std::string_view key, Dimension dimension, QuantityRule rule = QuantityRule::positive) {
    if (!present_or_missing(key)) return Q(0);
    return quantity<Q>(key, dimension, Q(0), rule);
  }

  /// Reader of the child object `key`; nullopt when absent or not an object (the latter is reported).
  std::optional<ObjectReader> child(std::string_view key);
  /// Like child(), but absence is reported; returns an invalid reader when absent.
  ObjectReader require_child(std::string_view key);

  /// Accepts a key that documents the entry (description, source, calibration) without using it.
  /// `must_be_string`: anything but a string is a type error.
  void accept(std::string_view key, bool must_be_string = true);

  /// Records a problem about `key` (present or not) / about this object itself.
  void error(std::string_view key, std::string message);
  void error_here(std::string message);

  /// Reports every key of the object that no getter asked for. Call once, after all getters.
  void finish();

 private:
  bool present_or_missing(std::string_view key);  // reports "missing required key" when absent
  void type_error(std::string_view key, std::string_view expected, const nlohmann::json& got);

  const nlohmann::json* object_ = nullptr;
  std::string pointer_;
  ReadContext* ctx_;
  std::vector<std::string_view> known_;
};

/// `string "4"` / `number 80` / `object` — a short description of a JSON value for messages.
std::string describe(const nlohmann::json& value);

}  // namespace clustersim::config
