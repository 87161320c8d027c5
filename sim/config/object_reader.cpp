#include "sim/config/object_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "sim/config/edit_distance.hpp"

namespace clustersim::config {

std::string describe(const nlohmann::json& value) {
  if (value.is_object() || value.is_array() || value.is_null()) return value.type_name();
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return fmt::format("{} {}", value.type_name(), text);
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string pointer, const Section& section,
                           ReadContext& ctx)
    : pointer_(std::move(pointer)), section_(&section), ctx_(&ctx) {
  known_.reserve(section.fields.size());  // every key read is a declared field: one allocation per reader
  if (value.is_object()) {
    object_ = &value;
  } else if (!ctx.failed(pointer_)) {
    ctx.error(pointer_, fmt::format("expected an object, got {}", describe(value)));
  }
}

const Field& ObjectReader::field(std::string_view key) const {
  if (last_field_ != nullptr && last_field_->key == key) return *last_field_;
  const Field* f = section_->find(key);
  CS_ASSERT(f != nullptr, fmt::format("key \"{}\" is not declared by section \"{}\"", key, section_->name));
  last_field_ = f;
  return *f;
}

const Field& ObjectReader::typed_field(std::string_view key, FieldKind kind) const {
  const Field& f = field(key);
  CS_ASSERT(f.kind == kind, fmt::format("key \"{}\" of section \"{}\" is read with a getter of another type",
                                        key, section_->name));
  return f;
}

void ObjectReader::check_fallback(const Field& f) {
  CS_ASSERT(
      !f.literal_default(),
      fmt::format("key \"{}\" declares its default ({}): read it without a fallback", f.key, f.fallback));
}

std::string_view ObjectReader::literal_string(const Field& f) {
  CS_ASSERT(f.fallback.size() >= 2 && f.fallback.front() == '"' && f.fallback.back() == '"',
            fmt::format("key \"{}\" has no string default", f.key));
  return f.fallback.substr(1, f.fallback.size() - 2);
}

std::string_view ObjectReader::default_or_stand_in(const Field& f) {
  const bool string_default = f.fallback.size() >= 2 && f.fallback.front() == '"' && f.fallback.back() == '"';
  // Present (get_choice found it wrong and recorded why) with no literal default: any declared name will do,
  // since the recorded error discards the result. Absent with no literal default is the caller's mistake
  // (it reads a derived default with has() first), and literal_string says so.
  if (!string_default && !f.choices.empty() && find(f.key) != nullptr) return f.choices.front();
  return literal_string(f);
}

double ObjectReader::literal_quantity(const Field& f) {
  try {
    if (f.fallback.starts_with('"')) return parse_quantity(literal_string(f), f.dimension);
  } catch (const std::invalid_argument&) {
  }
  return literal_number(f);
}

double ObjectReader::literal_number(const Field& f) {
  double x = 0.0;
  const auto* end = f.fallback.data() + f.fallback.size();
  const auto [at, ec] = std::from_chars(f.fallback.data(), end, x);
  CS_ASSERT(ec == std::errc() && at == end && f.literal_default(),
            fmt::format("key \"{}\" has no numeric default", f.key));
  return x;
}

const nlohmann::json* ObjectReader::find(std::string_view key) {
  // known_ holds the declared keys themselves (the section's storage, never a caller's temporary), so a
  // key is in it when its characters are at the same address.
  const std::string_view declared = field(key).key;
  const auto same = [declared](std::string_view k) { return k.data() == declared.data() && k.size() == declared.size(); };
  if (std::find_if(known_.begin(), known_.end(), same) == known_.end()) known_.push_back(declared);
  if (object_ == nullptr) return nullptr;
  const auto it = object_->find(key);
  return it == object_->end() ? nullptr : &*it;
}

bool ObjectReader::has(std::string_view key) {
  return find(key) != nullptr;
}

bool ObjectReader::present_or_missing(std::string_view key) {
  if (has(key)) return true;
  if (valid()) error(key, "missing required key");
  return false;
}

void ObjectReader::type_error(std::string_view key, std::string_view expected, const nlohmann::json& got) {
  error(key, fmt::format("expected {}, got {}", expected, describe(got)));
}

void ObjectReader::error(std::string_view key, std::string message) {
  ctx_->error(pointer_of(key), std::move(message));
}

void ObjectReader::error_here(std::string message) {
  ctx_->error(pointer_, std::move(message));
}

std::optional<std::int64_t> ObjectReader::get_integer(std::string_view key) {
  const IntRange range = typed_field(key, FieldKind::integer).ints;
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  std::int64_t n = 0;
  if (v->is_number_integer()) {
    n = v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(INT64_MAX)
            ? INT64_MAX
            : v->get<std::int64_t>();
  } else if (v->is_number_float() && std::nearbyint(v->get<double>()) == v->get<double>() &&
             std::fabs(v->get<double>()) < 9e18) {
    n = static_cast<std::int64_t>(v->get<double>());
  } else {
    type_error(key, "an integer", *v);
    return std::nullopt;
  }
  if (n < range.min || n > range.max) {
    if (range.max == std::numeric_limits<int>::max() && n < range.min) {
      error(key, fmt::format("{} is out of range (must be >= {})", n, range.min));
    } else if (range.max == std::numeric_limits<int>::max()) {
      // "2147483648 is out of range (must be >= 1)" read as a contradiction: say the bound it broke.
      error(key, fmt::format("{} is out of range (must be at most {}, the largest 32-bit integer)", n, range.max));
    } else {
      error(key, fmt::format("{} is out of range (must be in {}..{})", n, range.min, range.max));
    }
    return std::nullopt;
  }
  return n;
}

int ObjectReader::integer(std::string_view key) {
  if (auto v = get_integer(key)) return static_cast<int>(*v);
  return static_cast<int>(literal_number(field(key)));
}

int ObjectReader::integer(std::string_view key, int fallback) {
  check_fallback(field(key));
  if (auto v = get_integer(key)) return static_cast<int>(*v);
  return fallback;
}

int ObjectReader::require_integer(std::string_view key) {
  if (!present_or_missing(key)) return 0;
  return static_cast<int>(get_integer(key).value_or(0));
}

std::optional<double> ObjectReader::get_number(std::string_view key) {
  const NumberRange range = typed_field(key, FieldKind::number).numbers;
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) {
    type_error(key, "a number", *v);
    return std::nullopt;
  }
  const double x = v->get<double>();
  const bool below = range.min_exclusive ? !(x > range.min) : !(x >= range.min);
  if (below || x > range.max) {
    // An open end is not printed as "inf": a message quoted in a report (a record skipped because its
    // experiment is refused) must hold no non-finite word.
    const std::string bound =
        std::isinf(range.max)   ? fmt::format("{} {}", range.min_exclusive ? ">" : ">=", range.min)
        : std::isinf(range.min) ? fmt::format("<= {}", range.max)
                                : fmt::format("in {}{}, {}]", range.min_exclusive ? "(" : "[", range.min, range.max);
    error(key, fmt::format("{} is out of range (must be {})", x, bound));
    return std::nullopt;
  }
  return x;
}

double ObjectReader::number(std::string_view key) {
  if (auto v = get_number(key)) return *v;
  return literal_number(field(key));
}

double ObjectReader::number(std::string_view key, double fallback) {
  check_fallback(field(key));
  return get_number(key).value_or(fallback);
}

double ObjectReader::require_number(std::string_view key) {
  if (!present_or_missing(key)) return 0.0;
  return get_number(key).value_or(0.0);
}

std::optional<bool> ObjectReader::get_boolean(std::string_view key) {
  (void)typed_field(key, FieldKind::boolean);
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    type_error(key, "true or false", *v);
    return std::nullopt;
  }
  return v->get<bool>();
}

bool ObjectReader::boolean(std::string_view key) {
  if (auto v = get_boolean(key)) return *v;
  const Field& f = field(key);
  CS_ASSERT(f.fallback == "true" || f.fallback == "false",
            fmt::format("key \"{}\" has no boolean default", key));
  return f.fallback == "true";
}

bool ObjectReader::boolean(std::string_view key, bool fallback) {
  check_fallback(field(key));
  return get_boolean(key).value_or(fallback);
}

std::optional<std::string> ObjectReader::get_string(std::string_view key) {
  CS_ASSERT(field(key).kind == FieldKind::string || field(key).kind == FieldKind::text,
            fmt::format("key \"{}\" is read as a string but declared otherwise", key));
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    type_error(key, "a string", *v);
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::string ObjectReader::string(std::string_view key, std::string fallback) {
  check_fallback(field(key));
  if (auto v = get_string(key)) return std::move(*v);
  return fallback;
}

std::string ObjectReader::require_string(std::string_view key) {
  if (!present_or_missing(key)) return {};
  return get_string(key).value_or(std::string());
}

std::optional<std::size_t> ObjectReader::get_choice(std::string_view key) {
  const std::span<const std::string_view> names = typed_field(key, FieldKind::choice).choices;
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  const std::vector<std::string_view> all(names.begin(), names.end());
  if (!v->is_string()) {
    type_error(key, fmt::format("one of {}", quoted_list(all)), *v);
    return std::nullopt;
  }
  const auto& s = v->get_ref<const std::string&>();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return i;
  }
  error(key, fmt::format("unknown value \"{}\"; allowed: {}{}", s, quoted_list(all), did_you_mean(s, all)));
  return std::nullopt;
}

std::optional<double> ObjectReader::get_quantity(std::string_view key) {
  const Field& f = typed_field(key, FieldKind::quantity);
  const Dimension dimension = f.dimension;
  const QuantityRule rule = f.rule;
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number() && dimension == Dimension::count) {
    const double n = v->get<double>();
    if (rule == QuantityRule::any || n > 0.0 || (rule == QuantityRule::non_negative && n == 0.0)) return n;
    error(key, fmt::format("{} must be {}", v->dump(),
                           rule == QuantityRule::positive ? "positive" : "non-negative"));
    return std::nullopt;
  }
  if (v->is_number()) {
    error(key, fmt::format("bare number {} needs a unit: write a string such as {} (SI unit: {})", v->dump(),
                           unit_examples(dimension), si_unit(dimension)));
    return std::nullopt;
  }
  if (!v->is_string()) {
    type_error(key, fmt::format("a string with a unit such as {}", unit_examples(dimension)), *v);
    return std::nullopt;
  }
  double x = 0.0;
  try {
    x = parse_quantity(v->get_ref<const std::string&>(), dimension);
  } catch (const std::invalid_argument& e) {
    error(key, e.what());
    return std::nullopt;
  }
  if (rule == QuantityRule::positive && !(x > 0.0)) {
    error(key, fmt::format("\"{}\" must be positive", v->get_ref<const std::string&>()));
    return std::nullopt;
  }
  if (rule == QuantityRule::non_negative && x < 0.0) {
    error(key, fmt::format("\"{}\" must not be negative", v->get_ref<const std::string&>()));
    return std::nullopt;
  }
  return x;
}

std::optional<ObjectReader> ObjectReader::child(std::string_view key) {
  const Field& f = field(key);
  CS_ASSERT(f.section != nullptr, fmt::format("key \"{}\" declares no object", key));
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  ObjectReader r(*v, pointer_of(key), *f.section, *ctx_);
  if (!r.valid()) return std::nullopt;
  return r;
}

ObjectReader ObjectReader::require_child(std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const Field& f = field(key);
  CS_ASSERT(f.section != nullptr, fmt::format("key \"{}\" declares no object", key));
  if (!present_or_missing(key)) {
    ObjectReader invalid(kEmpty, pointer_of(key), *f.section, *ctx_);
    invalid.object_ = nullptr;
    return invalid;
  }
  return ObjectReader(*find(key), pointer_of(key), *f.section, *ctx_);
}

void ObjectReader::accept(std::string_view key) {
  const Field& f = field(key);
  const auto* v = find(key);
  if (v == nullptr) return;
  if (f.kind == FieldKind::text && !v->is_string()) {
    type_error(key, "a string", *v);
  } else if (f.kind == FieldKind::string_map && !v->is_object()) {
    error(key, fmt::format("expected an object (field -> citation), got {}", describe(*v)));
  } else if (f.kind == FieldKind::string_map) {
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (!it.value().is_string()) {
        ctx_->error(child_pointer(pointer_of(key), it.key()),
                    fmt::format("expected a citation string, got {}", describe(it.value())));
      }
    }
  }
}

void ObjectReader::finish() {
  if (object_ == nullptr) return;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    const std::string& key = it.key();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    error(key, fmt::format("unknown key{}", did_you_mean(key, known_)));
  }
}

}  // namespace clustersim::config
