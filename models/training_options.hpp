// Training-recipe choices that the cost and memory models depend on.
#pragma once

namespace clustersim {

enum class Recompute { none, selective, full };  // Korthikanti et al. 2022 §5
enum class Optimizer { adam, sgd };

}  // namespace clustersim
