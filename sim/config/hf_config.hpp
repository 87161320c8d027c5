// Hugging Face `config.json` -> clustersim model object (a pure function over JSON values).
//
// A model may be given as `{"hf_config": "path/to/config.json", ...}`: the Transformers configuration
// that ships with a checkpoint. convert_hf_config() maps its keys to the model keys of
// configs/models/*.json (sim/config/model_reader.cpp) and says what it could not use:
//
//   supported model_type   llama (Llama 2/3), mistral, qwen2, gemma, gpt_neox (Pythia, GPT-NeoX), gpt2, phi,
//                          bloom and mpt (ALiBi), falcon (multi-query 7B, new decoder architecture 40B/180B),
//                          MoE: mixtral, qwen2_moe, qwen3_moe, deepseek_v3
//   refused                mixture-of-experts (num_local_experts, num_experts, n_routed_experts, ...),
//                          head_dim != hidden_size / num_attention_heads, other model_types, activations
//                          the simulator has no MLP for
//
// Mapping (HF -> clustersim): num_hidden_layers|n_layer -> layers, hidden_size|n_embd -> hidden,
// num_attention_heads|n_head -> heads, num_key_value_heads -> kv_heads, intermediate_size|n_inner ->
// ffn_hidden, vocab_size -> vocab, max_position_embeddings|n_positions -> seq_len (only when the user gives
// no seq_len), hidden_act silu/swish on a gated MLP -> mlp "swiglu", gelu* -> "gelu" (GeGLU -> "swiglu":
// same three matrices), rms_norm_eps -> norm "rmsnorm", layer_norm_eps -> "layernorm", rotary families ->
// position "rotary", attention_bias/mlp_bias/Qwen2's q,k,v bias -> linear_bias, tie_word_embeddings ->
// tied_embeddings, use_parallel_residual (gpt_neox, default true) and phi's parallel block -> parallel_block.
// BLOOM (n_layer, n_head, hidden_size / n_embed; MLP 4h, biases, ALiBi, no seq length: seq_len must be
// written beside it), MPT (d_model, n_heads, n_layers, expansion_ratio, max_seq_len, no_bias, norm_type,
// learned_pos_emb, the nested attn_config: alibi, attn_type, kv_n_heads) and Falcon (num_kv_heads,
// multi_query, new_decoder_architecture, parallel_attn, alibi, bias, ffn_hidden_size, activation) have
// converters of their own; keys of a nested object that are not used are listed as "attn_config.clip_qkv".
//
// Every HF key that is neither mapped nor refused is listed in `ignored`; every value the conversion had
// to assume or approximate is a sentence in `assumptions`. Problems carry the JSON pointer inside the HF
// file; the caller attaches its file name.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::config {

struct HfProblem {
  std::string pointer;  // inside the HF config.json ("/num_local_experts", "" for the whole file)
  std::string message;
};

struct HfKeyOrigin {
  std::string key;         // clustersim model key ("hidden")
  std::string hf_pointer;  // where its value came from in the HF file ("/hidden_size")
};

struct HfConversion {
  nlohmann::json model = nlohmann::json::object();  // clustersim model keys (no name, no hf_config)
  std::vector<HfKeyOrigin> origins;                 // one per key of `model`
  std::vector<std::string> ignored;                 // HF keys not used, sorted
  std::vector<std::string> assumptions;             // sentences, in the order made
  std::vector<HfProblem> problems;                  // non-empty: `model` is incomplete, do not use it
};

/// Converts a parsed HF config.json. `given` is the object that names it (keys written beside
/// `hf_config` override the converted ones, and the conversion makes no assumption about them).
HfConversion convert_hf_config(const nlohmann::json& hf, const nlohmann::json& given);

}  // namespace clustersim::config
