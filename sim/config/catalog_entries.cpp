#include "sim/config/catalog_entries.hpp"

#include <stdexcept>

#include "sim/config/reference_resolver.hpp"
#include "sim/config/section_readers.hpp"

namespace clustersim::config {
namespace {

template <class Read>
auto load_entry(Catalog& catalog, CatalogKind kind, std::string_view name_or_path, Read read) {
  std::filesystem::path file;
  try {
    file = catalog.resolve(kind, name_or_path, {});
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string(name_or_path), "", e.what());
  }
  ResolvedDocument doc{catalog.load(file), Provenance(file.string(), file.parent_path()), {}};
  ReferenceResolver(catalog).resolve_entry(doc, kind);

  Diagnostics diagnostics;
  ReadContext ctx(doc.origin, diagnostics);
  for (const auto& p : doc.problems) ctx.record(p.diagnostic, p.at);
  ObjectReader reader(doc.document, "", ctx);
  auto value = read(reader);
  reader.finish();
  diagnostics.throw_if_any();
  return value;
}

}  // namespace

DeviceSpec load_device(Catalog& catalog, std::string_view name_or_path) {
  return load_entry(catalog, CatalogKind::devices, name_or_path,
                    [](ObjectReader& r) { return read_device(r); });
}

NodeSpec load_node(Catalog& catalog, std::string_view name_or_path) {
  return load_entry(catalog, CatalogKind::nodes, name_or_path, [](ObjectReader& r) { return read_node(r); });
}

ClusterSpec load_cluster(Catalog& catalog, std::string_view name_or_path) {
  return load_entry(catalog, CatalogKind::clusters, name_or_path,
                    [](ObjectReader& r) { return read_cluster(r); });
}

TransformerSpec load_model(Catalog& catalog, std::string_view name_or_path) {
  return load_entry(catalog, CatalogKind::models, name_or_path,
                    [](ObjectReader& r) { return read_model(r); });
}

}  // namespace clustersim::config
