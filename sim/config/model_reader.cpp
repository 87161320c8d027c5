#include <fmt/format.h>

#include "sim/config/enum_names.hpp"
#include "sim/config/section_readers.hpp"

namespace clustersim::config {

TransformerSpec read_model(ObjectReader& r) {
  TransformerSpec m;
  m.name = r.string("name", entry_name_from_file(r));
  r.accept("description");
  accept_sources(r);
  const IntRange positive{.min = 1};
  m.layers = r.require_integer("layers", positive);
  m.hidden = r.require_integer("hidden", positive);
  m.heads = r.require_integer("heads", positive);
  m.kv_heads = r.integer("kv_heads", m.heads, positive);
  m.vocab = r.require_integer("vocab", positive);
  m.seq_len = r.require_integer("seq_len", positive);
  m.mlp = r.enumeration("mlp", mlp_names(), MlpKind::gelu);
  if (r.has("ffn_hidden")) {
    m.ffn_hidden = r.require_integer("ffn_hidden", positive);
  } else if (m.mlp == MlpKind::gelu) {
    m.ffn_hidden = 4 * m.hidden;  // GPT convention (Radford et al. 2019; Narayanan et al. 2021 Eq. 2)
  } else if (r.valid()) {
    r.error("ffn_hidden",
            "missing required key (no default for mlp \"swiglu\"; Llama uses about 8h/3 rounded)");
  }
  m.norm = r.enumeration("norm", norm_names(), NormKind::layernorm);
  m.position = r.enumeration("position", position_names(), PositionKind::learned);
  m.linear_bias = r.boolean("linear_bias", true);
  m.tied_embeddings = r.boolean("tied_embeddings", true);
  m.published_params = r.get_quantity("params", Dimension::count, QuantityRule::positive).value_or(0.0);
  if (m.heads > 0 && m.hidden > 0 && m.hidden % m.heads != 0 && !r.context().failed(r.pointer_of("heads"))) {
    r.error("heads", fmt::format("heads ({}) must divide hidden ({})", m.heads, m.hidden));
  }
  if (m.heads > 0 && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    r.error("kv_heads", fmt::format("kv_heads ({}) must divide heads ({}) (grouped-query attention)",
                                    m.kv_heads, m.heads));
  }
  return m;
}

}  // namespace clustersim::config
