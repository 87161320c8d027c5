#include "sim/config/pipeline_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace clustersim::config {
namespace {

constexpr std::size_t kMaxExpanded = 1000000;
constexpr std::size_t kMaxLayoutText = 10000;  // characters of a layout string as written

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The repetition count at s[at...] (one or more digits, as `\d+` matches); `end` is set past them.
// Saturates above kMaxExpanded (the caller refuses the expansion then).
std::optional<std::size_t> count_at(std::string_view s, std::size_t at, std::size_t& end) {
  if (at >= s.size() || !is_digit(s[at])) return std::nullopt;
  std::size_t n = 0;
  end = at;
  while (end < s.size() && is_digit(s[end])) {
    n = std::min<std::size_t>(n * 10 + static_cast<std::size_t>(s[end] - '0'), kMaxExpanded + 1);
    ++end;
  }
  return n;
}

bool append_repeated(std::string& out, std::string_view unit, std::size_t n) {
  if (n > 0 && unit.size() > (kMaxExpanded - std::min(out.size(), kMaxExpanded)) / n) return false;
  for (std::size_t k = 0; k < n; ++k) out.append(unit);
  return true;
}

// One left-to-right re.sub pass: at each position `match` either finds a repeated unit (the text to
// repeat and where its `*N` begins) or not; a match is replaced by N copies of the unit, anything else
// copied. Python's re.sub scans the same way (a non-overlapping leftmost match at each position).
struct UnitMatch {
  std::string_view unit;
  std::size_t star = 0;  // index of the '*' that follows the unit
};
template <typename Match>
std::optional<std::string> unroll(std::string_view s, Match match) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t end = 0;
    if (const std::optional<UnitMatch> m = match(s, i)) {
      if (auto n = count_at(s, m->star + 1, end)) {
        if (!append_repeated(out, m->unit, *n)) return std::nullopt;
        i = end;
        continue;
      }
    }
    out.push_back(s[i]);
    if (out.size() > kMaxExpanded) return std::nullopt;
    ++i;
  }
  return out;
}

// re.sub(r'\(([^)]+)\)\*(\d+)', group(1) * n, s): the bracket group cannot hold ')', so the first ')'
// closes it and no backtracking can help.
std::optional<std::string> unroll_groups(std::string_view s) {
  return unroll(s, [](std::string_view t, std::size_t i) -> std::optional<UnitMatch> {
    if (t[i] != '(') return std::nullopt;
    const std::size_t close = t.find(')', i + 1);
    if (close == std::string_view::npos || close == i + 1 || close + 1 >= t.size() || t[close + 1] != '*') {
      return std::nullopt;
    }
    return UnitMatch{t.substr(i + 1, close - i - 1), close + 1};
  });
}

// re.sub(r'(.)\*(\d+)', group(1) * n, s).
std::optional<std::string> unroll_chars(std::string_view s) {
  return unroll(s, [](std::string_view t, std::size_t i) -> std::optional<UnitMatch> {
    if (t[i] == '\n' || i + 1 >= t.size() || t[i + 1] != '*') return std::nullopt;
    return UnitMatch{t.substr(i, 1), i + 1};
  });
}

PipelineLayoutParse fail(std::string message) { return {std::nullopt, std::move(message)}; }

}  // namespace

int PipelineLayout::decoder_layers() const {
  int n = 0;
  for (const auto& s : stages) n += s.decoder;
  return n;
}

int PipelineLayout::mtp_layers() const {
  int n = 0;
  for (const auto& s : stages) n += s.mtp;
  return n;
}

std::vector<int> PipelineLayout::decoder_per_stage() const {
  std::vector<int> v;
  v.reserve(stages.size());
  for (const auto& s : stages) v.push_back(s.decoder);
  return v;
}

int PipelineLayout::mtp_stage() const {
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].mtp > 0) return static_cast<int>(i);
  }
  return -1;
}

std::string quoted_layout(std::string_view text) {
  constexpr std::size_t kShown = 60;
  if (text.size() <= kShown) return fmt::format("\"{}\"", text);
  return fmt::format("\"{}...\" ({} characters)", text.substr(0, kShown), text.size());
}

PipelineLayoutParse parse_pipeline_layout(std::string_view text) {
  // Real layouts are tens of characters; a bound on the input keeps the group scan (which looks for the
  // ')' closing each '(') linear in practice for any input.
  if (text.size() > kMaxLayoutText) {
    return fail(fmt::format("{} characters; a layout is at most {}", text.size(), kMaxLayoutText));
  }
  // The grammar is ASCII; any other byte could only be an invalid layer character.
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || (u < 0x20 && c != '\n')) {
      return fail("invalid character (layouts are ASCII: E, L, t, m, '|', '*', digits, parentheses, ',')");
    }
  }
  std::string s(text);
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());  // "purely cosmetic commas"
  const auto grouped = unroll_groups(s);
  const auto expanded = grouped ? unroll_chars(*grouped) : std::nullopt;
  if (!expanded) return fail(fmt::format("the repetitions expand past {} layer characters", kMaxExpanded));

  PipelineLayout layout;
  layout.stages.emplace_back();
  char first = 0;
  char last = 0;
  int embeddings = 0;
  int losses = 0;
  bool seen_mtp = false;
  for (char c : *expanded) {
    if (c == '|') {
      layout.stages.emplace_back();
      continue;
    }
    auto& st = layout.stages.back();
    switch (c) {
      case 'E':
        st.embedding = true;
        ++embeddings;
        break;
      case 'L':
        st.loss = true;
        ++losses;
        break;
      case 't':
        if (seen_mtp) return fail("decoder layers (t) must be placed before the MTP layers (m)");
        ++st.decoder;
        break;
      case 'm':
        seen_mtp = true;
        ++st.mtp;
        break;
      default:
        return fail(fmt::format("invalid layer character '{}' (known: E embedding, t transformer layer, m MTP "
                                "layer, L loss; '|' separates stages, x*N and (...)*N repeat)",
                                c == '\n' ? std::string("\\n") : std::string(1, c)));
    }
    if (first == 0) first = c;
    last = c;
  }
  if (first == 0) return fail("the layout holds no layers");
  if (first != 'E') return fail(fmt::format("the first layer must be the embedding E, got '{}'", first));
  if (last != 'L') return fail(fmt::format("the last layer must be the loss L, got '{}'", last));
  if (embeddings != 1) return fail(fmt::format("the embedding E must appear exactly once (found {})", embeddings));
  if (losses != 1) return fail(fmt::format("the loss L must appear exactly once (found {})", losses));
  return {std::move(layout), std::string()};
}

std::vector<std::string> pipeline_layout_problems(const PipelineLayout& layout, int pp, int vp, long long layers,
                                                  int mtp_depth) {
  std::vector<std::string> out;
  const long long want = static_cast<long long>(pp) * vp;
  const auto stages = static_cast<long long>(layout.stages.size());
  if (stages != want) {
    out.push_back(fmt::format("{} stages, but pp·vp = {}·{} = {} virtual stages", stages, pp, vp, want));
  }
  if (layout.decoder_layers() != layers) {
    out.push_back(fmt::format("{} transformer layers (t), but the model has {}", layout.decoder_layers(), layers));
  }
  if (layout.mtp_layers() != mtp_depth) {
    out.push_back(fmt::format("{} MTP layers (m), but the model has {} multi-token-prediction modules "
                              "(model.mtp_depth in experiments, model.moe.mtp_depth in records); Megatron-Core requires them equal",
                              layout.mtp_layers(), mtp_depth));
  }
  const int at = layout.mtp_stage();
  if (at >= 0 && layout.stages[static_cast<std::size_t>(at)].mtp != layout.mtp_layers()) {
    out.push_back("all MTP layers (m) must sit in one stage (Megatron-Core validate_layer_layout)");
  }
  return out;
}

std::optional<std::string> pipeline_layout_unsupported(const PipelineLayout& layout) {
  const int at = layout.mtp_stage();
  if (at >= 0 && at != static_cast<int>(layout.stages.size()) - 1) {
    return fmt::format(
        "pipeline_layout puts the MTP layers on virtual stage {} of {} (a standalone MTP stage); the engine "
        "runs multi-token prediction on the last virtual stage, beside the output layer, so only layouts "
        "with m in the stage of L are expressible",
        at, layout.stages.size());
  }
  return std::nullopt;
}

}  // namespace clustersim::config
