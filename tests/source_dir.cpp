// See source_dir.hpp.
#include "source_dir.hpp"

const char* clustersim_test_source_dir() { return CLUSTERSIM_SOURCE_DIR_PATH; }
