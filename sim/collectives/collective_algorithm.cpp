#include "sim/collectives/collective_algorithm.hpp"

#include <array>
#include <utility>

namespace clustersim {

namespace {

constexpr std::array<std::pair<std::string_view, CollectiveOp>, 7> kOps{{
    {"all-reduce", CollectiveOp::all_reduce},
    {"reduce-scatter", CollectiveOp::reduce_scatter},
    {"all-gather", CollectiveOp::all_gather},
    {"all-to-all", CollectiveOp::all_to_all},
    {"broadcast", CollectiveOp::broadcast},
    {"reduce", CollectiveOp::reduce},
    {"send-recv", CollectiveOp::send_recv},
}};

constexpr std::array<std::pair<std::string_view, CollectiveAlgorithm>, 9> kAlgos{{
    {"auto", CollectiveAlgorithm::automatic},
    {"ring", CollectiveAlgorithm::ring},
    {"tree", CollectiveAlgorithm::double_binary_tree},
    {"halving-doubling", CollectiveAlgorithm::halving_doubling},
    {"direct", CollectiveAlgorithm::direct},
    {"pairwise", CollectiveAlgorithm::pairwise},
    {"hierarchical", CollectiveAlgorithm::hierarchical},
    {"nvls", CollectiveAlgorithm::nvls},
    {"sharp", CollectiveAlgorithm::sharp},
}};

}  // namespace

std::string_view to_string(CollectiveOp op) {
  for (const auto& [name, value] : kOps) {
    if (value == op) return name;
  }
  return "?";
}

std::string_view to_string(CollectiveAlgorithm a) {
  for (const auto& [name, value] : kAlgos) {
    if (value == a) return name;
  }
  return "?";
}

std::optional<CollectiveOp> collective_op_from_string(std::string_view s) {
  for (const auto& [name, value] : kOps) {
    if (name == s) return value;
  }
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> collective_algorithm_from_string(std::string_view s) {
  for (const auto& [name, value] : kAlgos) {
    if (name == s) return value;
  }
  return std::nullopt;
}

std::vector<std::string_view> collective_algorithm_names() {
  std::vector<std::string_view> out;
  for (const auto& [name, value] : kAlgos) out.push_back(name);
  return out;
}

double bus_bandwidth_factor(CollectiveOp op, int n) {
  if (n <= 1) return 0.0;
  const double k = static_cast<double>(n);
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (k - 1.0) / k;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return (k - 1.0) / k;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::send_recv: return 1.0;
  }
  return 1.0;
}

}  // namespace clustersim
