// Whether this build has the flow engine. It is built only against SimGrid 3.x (3.32 or later 3.x; the
// CMake option CLUSTERSIM_FLOW_ENGINE, ON by default when pkg-config finds such a SimGrid). Without it,
// the entry points of flow_engine.hpp and collective_probe.hpp throw FlowEngineUnavailable, a bad-input
// error (std::invalid_argument: the CLI exits 2, the Python module raises ValueError) whose message
// names the SimGrid version found and points to docs/integrations.md. This is the only place outside
// CMake that knows whether the flow engine was built.
#pragma once

#include <stdexcept>
#include <string>

namespace clustersim::flow {

/// True when this build replays steps on SimGrid (`engine: "flow"` works).
[[nodiscard]] bool flow_engine_available();

/// One line for `clustersim --version`: "flow engine: built (SimGrid 3.32)" or
/// "flow engine: not built (it needs SimGrid 3.x, found 4.0; see docs/integrations.md)".
[[nodiscard]] std::string flow_engine_status();

/// Thrown by every flow-engine entry point of a build without the flow engine.
class FlowEngineUnavailable : public std::invalid_argument {
 public:
  FlowEngineUnavailable();
};

}  // namespace clustersim::flow
