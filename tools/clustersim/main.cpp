// clustersim: predicts step time, MFU, memory, communication and energy of large-model training.
// Thin CLI: parse arguments, call the library, print, map errors to exit codes (cli_main.cpp).
#include <dlfcn.h>

#include <cstddef>
#include <string>

#include "cli_main.hpp"

#ifndef CLUSTERSIM_MALLOC_SETTING
#define CLUSTERSIM_MALLOC_SETTING "unset"
#endif

namespace {

// The heap allocator this process runs with, found by the entry points each library exports (so it
// reports what is loaded, whether linked by CLUSTERSIM_MALLOC or preloaded): gperftools' tc_version,
// jemalloc's mallctl("version"), mimalloc's mi_version; else the C library's malloc.
std::string allocator_in_use() {
  using TcVersion = const char* (*)(int*, int*, const char**);
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  using MiVersion = int (*)();
  std::string found;
  if (void* f = dlsym(RTLD_DEFAULT, "tc_version")) {
    int major = 0, minor = 0;
    const char* patch = nullptr;
    found = std::string("tcmalloc (") + reinterpret_cast<TcVersion>(f)(&major, &minor, &patch) + ")";
  } else if (void* g = dlsym(RTLD_DEFAULT, "mallctl")) {
    const char* version = nullptr;
    std::size_t size = sizeof(version);
    found = "jemalloc";
    if (reinterpret_cast<Mallctl>(g)("version", &version, &size, nullptr, 0) == 0 && version != nullptr)
      found += std::string(" ") + version;
  } else if (void* h = dlsym(RTLD_DEFAULT, "mi_version")) {
    const int v = reinterpret_cast<MiVersion>(h)();
    found = "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
  } else {
    found = "system (the C library's malloc)";
  }
  return found + ", CLUSTERSIM_MALLOC=" CLUSTERSIM_MALLOC_SETTING;
}

}  // namespace

int main(int argc, char** argv) { return clustersim::cli::run_cli(argc, argv, allocator_in_use); }
