// Declared configuration keys: every key of an experiment or catalog file is declared once, as a Field of
// a Section, next to the reader that reads it (ns-3's "every parameter declared once with a name, help
// text, default, unit and check").
//
// The declarations are used three ways:
//   - ObjectReader (object_reader.hpp) reads a JSON object against its Section: a getter takes the type,
//     range, unit, enum names and default of a key from its Field (asking for an undeclared key is an
//     internal error), and finish() reports every key the section does not declare as unknown;
//   - json_schema.hpp exports a JSON Schema (draft 2020-12) built from the sections
//     (`clustersim schema`);
//   - the key tables of docs/configuration.md are printed from them (`clustersim schema --format
//     markdown`), and a test fails when the committed page differs.
//
// A field's `fallback` is its default, as text:
//   ""                 no default (absent means "not given"; the reader decides what that means)
//   "required"         the key must be given
//   "derived: <rule>"  computed from other keys or catalogs; the reader passes the value
//   a JSON literal     the default itself (`1`, `0.8`, `true`, `"bf16"`, `"0 s"`): getters without a
//                      fallback argument return it, so no reader repeats it.
//
// Declaring a key (docs/configuration.md, "Declaring a key"):
//   constexpr Field kModelFields[] = {
//       {.key = "layers", .kind = FieldKind::integer, .doc = "transformer layers", .fallback = "required",
//        .ints = {.min = 1}},
//       ...};
//   const Section kModelSection{"model", "/model", "a dense decoder-only transformer", kModelFields};
// and in the reader: `m.layers = r.require_integer("layers");`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

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
enum class QuantityRule : std::uint8_t { positive, non_negative, any };

/// One spelling of an enum value; a table is a span of these.
template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

/// The JSON names of an EnumName table, for a Field's `choices` (one spelling, declared once).
template <class E, std::size_t N>
constexpr std::array<std::string_view, N> choices_of(const std::array<EnumName<E>, N>& table) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) names[i] = table[i].name;
  return names;
}

enum class FieldKind : std::uint8_t {
  integer,
  number,
  boolean,
  string,
  text,        // documentation (description, source, calibration): a string the simulator does not use
  choice,      // one of `choices`
  quantity,    // a string with a unit of `dimension` ("80 GiB"); a count may also be a bare number
  object,      // a nested object declared by `section`
  reference,   // a catalog name or path (string), or an inline object declared by `section`
  array,       // an array of `items` values (objects: declared by `section`)
  string_map,  // an object of strings (`sources`: field -> citation)
  object_map,  // an object of named entries, each declared by `section` (a catalog file's groups)
};

/// Forms a value may take besides its kind (bit flags).
enum FieldAlso : std::uint8_t {
  also_none = 0,
  also_null = 1,      // null (removes a default)
  also_name = 2,      // any string: the name of a catalog entry
  also_array = 4,     // an array of values of the kind (with its range)
  also_integers = 8,  // an array of integers in `ints` (e.g. node indices)
};

struct Section;

struct Field {
  std::string_view key;
  FieldKind kind = FieldKind::string;
  std::string_view doc;
  std::string_view fallback = {};
  IntRange ints = {};                      // integer (and integer items)
  NumberRange numbers = {};                // number
  Dimension dimension = Dimension::count;  // quantity
  QuantityRule rule = QuantityRule::positive;
  /// choice: the allowed names. Other kinds: string literals accepted besides the kind ("auto").
  std::span<const std::string_view> choices = {};
  const Section* section = nullptr;     // object, reference, array of objects
  FieldKind items = FieldKind::object;  // array: the kind of the elements
  std::uint8_t also = also_none;
  std::string_view type_text = {};  // replaces the generated "type" of the docs (odd shapes only)
  std::string_view schema = {};     // replaces the generated JSON Schema of the value (JSON text)
  std::string_view source = {};     // citation of the default, when it has one

  [[nodiscard]] bool required() const { return fallback == "required"; }
  [[nodiscard]] bool derived() const { return fallback.starts_with("derived:"); }
  /// True when `fallback` is the default value itself (a JSON literal).
  [[nodiscard]] bool literal_default() const { return !fallback.empty() && !required() && !derived(); }
};

struct Section {
  std::string_view name;     // "cluster": the --section name and the schema's $defs key
  std::string_view pointer;  // where it sits in an experiment ("/cluster/node"; "/jobs/*" for items)
  std::string_view doc;
  std::span<const Field> fields;
  std::string_view required_unless = {};  // a key that, when given, supplies the required keys (hf_config)

  /// The declaration of `key`, or nullptr.
  [[nodiscard]] const Field* find(std::string_view key) const {
    // Length and first character first: most declared keys differ there, without a memcmp call.
    for (const Field& f : fields) {
      if (f.key.size() == key.size() && (key.empty() || (f.key[0] == key[0] && f.key == key))) return &f;
    }
    return nullptr;
  }
};

}  // namespace clustersim::config
