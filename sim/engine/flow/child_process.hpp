// Runs a function in a forked child process and returns the bytes it wrote.
//
// SimGrid 3.32 allows one s4u::Engine per process (a second one aborts: "Cannot change the model after
// the initialization"), so every flow simulation runs in its own child; the parent never creates an
// Engine and can run any number of simulations (sweeps, multi-job solo/shared comparisons, tests).
// POSIX only. The child calls _exit() and never returns into the caller.
#pragma once

#include <functional>
#include <string>

namespace clustersim::flow {

/// Writes `bytes` to the parent (call from the child body, any number of times).
using ChildWriter = std::function<void(const void* data, std::size_t size)>;

/// Forks, runs `body` in the child, collects what it wrote. If the body throws, its message is rethrown
/// in the parent as std::runtime_error; if the child dies, a runtime_error says so.
std::string run_in_child(const std::function<void(const ChildWriter&)>& body);

}  // namespace clustersim::flow
