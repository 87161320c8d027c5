#include "sim/config/object_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
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

ObjectReader::ObjectReader(const nlohmann::json& value, std::string pointer, ReadContext& ctx)
    : pointer_(std::move(pointer)), ctx_(&ctx) {
  if (value.is_object()) {
    object_ = &value;
  } else if (!ctx.failed(pointer_)) {
    ctx.error(pointer_, fmt::format("expected an object, got {}", describe(value)));
  }
}

const nlohmann::json* ObjectReader::find(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
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

std::optional<std::int64_t> ObjectReader::get_integer(std::string_view key, IntRange range) {
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
    if (range.max == std::numeric_limits<int>::max()) {
      error(key, fmt::format("{} is out of range (must be >= {})", n, range.min));
    } else {
      error(key, fmt::format("{} is out of range (must be in {}..{})", n, range.min, range.max));
    }
    return std::nullopt;
  }
  return n;
}

int ObjectReader::integer(std::string_view key, int fallback, IntRange range) {
  if (auto v = get_integer(key, range)) return static_cast<int>(*v);
  return fallback;
}

int ObjectReader::require_integer(std::string_view key, IntRange range) {
  if (!present_or_missing(key)) return 0;
  return integer(key, 0, range);
}

std::optional<double> ObjectReader::get_number(std::string_view key, NumberRange range) {
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) {
    type_error(key, "a number", *v);
    return std::nullopt;
  }
  const double x = v->get<double>();
  const bool below = range.min_exclusive ? !(x > range.min) : !(x >= range.min);
  if (below || x > range.max) {
    error(key, fmt::format("{} is out of range (must be in {}{}, {}])", x, range.min_exclusive ? "(" : "[",
                           range.min, range.max));
    return std::nullopt;
  }
  return x;
}

double ObjectReader::number(std::string_view key, double fallback, NumberRange range) {
  return get_number(key, range).value_or(fallback);
}

double ObjectReader::require_number(std::string_view key, NumberRange range) {
  if (!present_or_missing(key)) return 0.0;
  return number(key, 0.0, range);
}

std::optional<bool> ObjectReader::get_boolean(std::string_view key) {
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    type_error(key, "true or false", *v);
    return std::nullopt;
  }
  return v->get<bool>();
}

bool ObjectReader::boolean(std::string_view key, bool fallback) {
  return get_boolean(key).value_or(fallback);
}

std::optional<std::string> ObjectReader::get_string(std::string_view key) {
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    type_error(key, "a string", *v);
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::string ObjectReader::string(std::string_view key, std::string fallback) {
  if (auto v = get_string(key)) return std::move(*v);
  return fallback;
}

std::string ObjectReader::require_string(std::string_view key) {
  if (!present_or_missing(key)) return {};
  return string(key, {});
}

std::optional<std::size_t> ObjectReader::get_choice(std::string_view key,
                                                    std::span<const std::string_view> names) {
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

std::optional<double> ObjectReader::get_quantity(std::string_view key, Dimension dimension,
                                                 QuantityRule rule) {
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
  const auto* v = find(key);
  if (v == nullptr) return std::nullopt;
  ObjectReader r(*v, pointer_of(key), *ctx_);
  if (!r.valid()) return std::nullopt;
  return r;
}

ObjectReader ObjectReader::require_child(std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!present_or_missing(key)) {
    ObjectReader invalid(kEmpty, pointer_of(key), *ctx_);
    invalid.object_ = nullptr;
    return invalid;
  }
  return ObjectReader(*find(key), pointer_of(key), *ctx_);
}

void ObjectReader::accept(std::string_view key, bool must_be_string) {
  const auto* v = find(key);
  if (v != nullptr && must_be_string && !v->is_string()) type_error(key, "a string", *v);
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
