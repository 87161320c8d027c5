#include "sim/config/hf_model_splice.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/config/hf_config.hpp"
#include "sim/config/json_file.hpp"

namespace clustersim::config {
namespace {

using nlohmann::json;

void add_problem(ResolvedDocument& doc, const std::string& at, const std::string& pointer,
                 std::string message) {
  auto where = doc.origin.locate(pointer);
  doc.problems.push_back({at, {std::move(where.file), std::move(where.pointer), std::move(message)}});
}

// The model's name when the object that names the HF file is inline (a catalog entry is named by its file).
std::string hf_model_name(const json& hf, const std::filesystem::path& file) {
  if (auto it = hf.find("_name_or_path");
      it != hf.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
    return it->get<std::string>();
  }
  if (file.filename() == "config.json" && file.has_parent_path())
    return file.parent_path().filename().string();
  return file.stem().string();
}

std::vector<std::string> notes_of(const HfConversion& conv, const std::filesystem::path& file,
                                  const json& hf) {
  std::vector<std::string> notes;
  notes.push_back(fmt::format("converted from the Hugging Face config {} (model_type {})", file.string(),
                              hf.value("model_type", std::string("?"))));
  notes.insert(notes.end(), conv.assumptions.begin(), conv.assumptions.end());
  if (!conv.ignored.empty()) {
    std::string keys;
    for (const auto& k : conv.ignored) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
    notes.push_back(fmt::format("HF keys ignored (no effect on the simulated step): {}", keys));
  }
  return notes;
}

}  // namespace

bool is_hf_config_pointer(std::string_view pointer) {
  return pointer == "/model/hf_config" ||
         (pointer.starts_with("/jobs/") && pointer.ends_with("/model/hf_config"));
}

void splice_hf_model(ResolvedDocument& doc, json& value, const std::string& pointer) {
  if (!value.is_object() || !value.contains("hf_config")) return;
  const std::string ref_pointer = child_pointer(pointer, "hf_config");
  const json reference = value["hf_config"];
  if (!reference.is_string() || reference.get_ref<const std::string&>().empty()) {
    add_problem(doc, pointer, ref_pointer,
                fmt::format("expected the path of a Hugging Face config.json (or of its directory), got {}",
                            reference.dump()));
    value = reference;
    return;
  }
  std::filesystem::path file(reference.get<std::string>());
  if (file.is_relative()) file = doc.origin.directory_of(ref_pointer) / file;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) file /= "config.json";
  file = file.lexically_normal();
  if (!std::filesystem::is_regular_file(file, ec)) {
    add_problem(doc, pointer, ref_pointer, fmt::format("no Hugging Face config at {}", file.string()));
    value = reference;
    return;
  }
  json hf;
  try {
    hf = read_json_file(file);
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics()) doc.problems.push_back({pointer, d});
    value = reference;
    return;
  }
  HfConversion conv = convert_hf_config(hf, value);
  if (!conv.problems.empty()) {
    for (auto& p : conv.problems) {
      if (p.pointer.empty()) {
        // About the file as a whole (a key it lacks): said at the experiment's hf_config, where it is fixed.
        add_problem(doc, pointer, ref_pointer, fmt::format("{}: {}", file.string(), p.message));
      } else {
        doc.problems.push_back({pointer, {file.string(), p.pointer, std::move(p.message)}});
      }
    }
    value = reference;
    return;
  }

  const bool inline_object = !doc.origin.locate(pointer).pointer.empty();
  json merged = std::move(conv.model);
  std::vector<std::string> notes = notes_of(conv, file, hf);
  for (const auto& [key, v] : value.items()) {
    if (key == "model_notes" && v.is_array()) {
      for (const auto& n : v) notes.push_back(n.is_string() ? n.get<std::string>() : n.dump());
    } else {
      merged[key] = v;
    }
  }
  if (inline_object && !merged.contains("name")) merged["name"] = hf_model_name(hf, file);
  if (!merged.contains("model_notes")) merged["model_notes"] = notes;  // a malformed value is left for the reader
  value = std::move(merged);
  for (const auto& o : conv.origins) {
    doc.origin.mount(child_pointer(pointer, o.key), file.string(),
                     o.hf_pointer.empty() ? "/model_type" : o.hf_pointer, file.parent_path());
  }
}

}  // namespace clustersim::config
