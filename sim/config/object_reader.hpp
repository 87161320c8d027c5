// Typed, diagnosing access to one JSON object of a configuration document, read against the Section
// that declares its keys (field.hpp).
//
// Every section reader (cluster, model, ..., run, energy, jobs) is written against this class, so that all
// of them report problems the same way:
//   - getters never throw: a problem is recorded in the ReadContext (file + JSON pointer + message) and
//     the getter returns its fallback, so one pass finds every problem of a document;
//   - a getter takes the type, range, unit, enum names and default of its key from the key's Field;
//     asking for a key the section does not declare, or with a getter of another type, is an internal
//     error (CS_ASSERT). Getters without a fallback argument return the declared default; a fallback
//     argument is for keys whose default is derived (`"derived: ..."`) or absent;
//   - `require_*` records "missing required key" when the key is absent;
//   - quantities are strings with units parsed by sim/core/unit_parse.hpp; a bare number is an error
//     that names the expected unit;
//   - `finish()` reports every key of the object that no getter asked for as unknown (keys the section
//     does not declare, and declared keys the reader did not read here, such as a torus key under a
//     fat-tree), with a did-you-mean suggestion drawn from the keys asked for.
//
//   ObjectReader r(json, "/training", kTrainingSection, ctx);
//   int mb = r.require_integer("micro_batch");
//   auto p = r.enumeration("precision", precision_names());
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

#include "sim/config/field.hpp"
#include "sim/config/read_context.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::config {

class ObjectReader {
 public:
  /// Reads the object `value` found at `pointer`. If it is not an object, one type error is recorded
  /// (unless a problem is already recorded there) and the reader is invalid: getters return fallbacks.
  ObjectReader(const nlohmann::json& value, std::string pointer, const Section& section, ReadContext& ctx);

  [[nodiscard]] bool valid() const { return object_ != nullptr; }
  [[nodiscard]] const std::string& pointer() const { return pointer_; }
  [[nodiscard]] std::string pointer_of(std::string_view key) const { return child_pointer(pointer_, key); }
  [[nodiscard]] ReadContext& context() const { return *ctx_; }
  [[nodiscard]] const Section& section() const { return *section_; }
  /// The declaration of `key` (CS_ASSERTs that the section declares it).
  [[nodiscard]] const Field& field(std::string_view key) const;

  /// True when `key` is present. Marks it known.
  bool has(std::string_view key);
  /// The raw value of `key` or nullptr. Marks it known.
  const nlohmann::json* find(std::string_view key);

  std::optional<std::int64_t> get_integer(std::string_view key);
  int integer(std::string_view key);
  int integer(std::string_view key, int fallback);
  int require_integer(std::string_view key);

  std::optional<double> get_number(std::string_view key);
  double number(std::string_view key);
  double number(std::string_view key, double fallback);
  double require_number(std::string_view key);

  std::optional<bool> get_boolean(std::string_view key);
  bool boolean(std::string_view key);
  bool boolean(std::string_view key, bool fallback);

  std::optional<std::string> get_string(std::string_view key);
  std::string string(std::string_view key, std::string fallback);
  std::string require_string(std::string_view key);

  /// Index into the field's `choices` of the string value of `key`; unknown values list the allowed ones.
  std::optional<std::size_t> get_choice(std::string_view key);

  /// The chosen name, or the declared default name when `key` is absent or wrong.
  /// A wrong value (its error recorded) of a key whose default is derived ("derived: ...", no literal name)
  /// gives the first declared name instead, a stand-in the caller's result is discarded with when the
  /// recorded errors are raised (a wrong-typed parallelism.moe_overlap was an internal error).
  std::string_view choice(std::string_view key) {
    if (auto i = get_choice(key)) return field(key).choices[*i];
    return default_or_stand_in(field(key));
  }

  /// The value of the chosen name in `table` (which must spell every declared choice).
  template <class E>
  std::optional<E> get_enum(std::string_view key, std::span<const EnumName<E>> table) {
    const auto i = get_choice(key);
    if (!i) return std::nullopt;
    return enum_value(table, field(key).choices[*i]);
  }
  template <class E>
  E enumeration(std::string_view key, std::span<const EnumName<E>> table) {
    if (auto v = get_enum(key, table)) return *v;
    return enum_value(table, default_or_stand_in(field(key)));
  }
  template <class E>
  E enumeration(std::string_view key, std::span<const EnumName<E>> table, E fallback) {
    check_fallback(field(key));
    return get_enum(key, table).value_or(fallback);
  }
  template <class E>
  E require_enum(std::string_view key, std::span<const EnumName<E>> table, E fallback) {
    if (!present_or_missing(key)) return fallback;
    return get_enum(key, table).value_or(fallback);
  }

  /// A dimensioned string ("80 GiB") in SI units. Dimension::count also accepts a bare number.
  std::optional<double> get_quantity(std::string_view key);
  template <class Q>
  Q quantity(std::string_view key) {
    if (auto v = get_quantity(key)) return Q(*v);
    return Q(literal_quantity(field(key)));
  }
  template <class Q>
  Q quantity(std::string_view key, Q fallback) {
    check_fallback(field(key));
    if (auto v = get_quantity(key)) return Q(*v);
    return fallback;
  }
  template <class Q>
  Q require_quantity(std::string_view key) {
    if (!present_or_missing(key)) return Q(0);
    return Q(get_quantity(key).value_or(0.0));
  }

  /// Reader of the child object `key` (its declared section); nullopt when absent or not an object (the
  /// latter is reported).
  std::optional<ObjectReader> child(std::string_view key);
  /// Like child(), but absence is reported; returns an invalid reader when absent.
  ObjectReader require_child(std::string_view key);

  /// Accepts a documentation key without using it: `text` must be a string, `string_map` an object of
  /// strings (reported per entry); other kinds are accepted as they are.
  void accept(std::string_view key);

  /// Records a problem about `key` (present or not) / about this object itself.
  void error(std::string_view key, std::string message);
  void error_here(std::string message);

  /// Reports every key of the object that no getter asked for. Call once, after all getters.
  void finish();

 private:
  bool present_or_missing(std::string_view key);  // reports "missing required key" when absent
  void type_error(std::string_view key, std::string_view expected, const nlohmann::json& got);
  const Field& typed_field(std::string_view key, FieldKind kind) const;
  static void check_fallback(const Field& f);  // a literal default is not repeated by the caller
  static std::string_view literal_string(const Field& f);
  std::string_view default_or_stand_in(const Field& f);  // literal_string, or the stand-in of choice()
  static double literal_quantity(const Field& f);
  static double literal_number(const Field& f);
  template <class E>
  static E enum_value(std::span<const EnumName<E>> table, std::string_view name) {
    for (const auto& entry : table) {
      if (entry.name == name) return entry.value;
    }
    CS_ASSERT(false, "a declared choice without a value in the enum table");
    return table.front().value;
  }

  const nlohmann::json* object_ = nullptr;
  std::string pointer_;
  const Section* section_;
  ReadContext* ctx_;
  std::vector<std::string_view> known_;
  // The field field() resolved last (getters look a key up two or three times in a row), compared by its
  // declared key's characters.
  mutable const Field* last_field_ = nullptr;
};

/// `string "4"` / `number 80` / `object` — a short description of a JSON value for messages.
std::string describe(const nlohmann::json& value);

}  // namespace clustersim::config
