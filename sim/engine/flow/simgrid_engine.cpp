#include "sim/engine/flow/simgrid_engine.hpp"

#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace clustersim::flow {

SimgridEngine::SimgridEngine() {
  static std::vector<std::string> args = {"clustersim-flow",          "--log=root.thres:critical",
                                          "--log=xbt_cfg.thres:critical", "--cfg=network/model:CM02",
                                          "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:0"};
  static std::vector<char*> argv;
  argv.clear();
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
}

// The process _exit()s after a simulation; tearing the engine down is not needed and is slow at scale.
SimgridEngine::~SimgridEngine() { static_cast<void>(engine_.release()); }

}  // namespace clustersim::flow
