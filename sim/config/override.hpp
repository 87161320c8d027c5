// --set POINTER=VALUE overrides, applied to a resolved experiment document.
//
// VALUE is parsed as JSON when it parses ("4", "true", "{\"tp\": 2}") and taken as a string otherwise
// ("40 GiB", "full", "h100-sxm5-80gb"). The pointer addresses the fully resolved document, so
// /cluster/node/device/memory/capacity reaches into the device even when the experiment names it from the
// catalog. Setting a reference slot (/cluster, /cluster/node, /cluster/node/device, /model) to a name or a
// path loads that entry (paths relative to the current directory). Missing intermediate objects are
// created; whether the key exists in the schema is decided by the section readers, which report an
// unknown key (with a suggestion) against "<--set>" and the override's pointer.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "sim/config/resolved_document.hpp"

namespace clustersim::config {

class Catalog;

struct Override {
  std::string pointer;  // RFC 6901, e.g. "/parallelism/tp"
  std::string value;    // text after '=', e.g. "4" or "40 GiB"
};

/// Splits "POINTER=VALUE" at the first '='. Throws ConfigError (file "<--set>") when there is no '=' or
/// the pointer does not start with '/'.
Override parse_override(std::string_view text);

/// Applies `overrides` in order to `doc`; problems go to doc.problems (file "<--set>").
void apply_overrides(ResolvedDocument& doc, std::span<const Override> overrides, Catalog& catalog);

}  // namespace clustersim::config
