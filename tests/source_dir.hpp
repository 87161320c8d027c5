// The repository root the tests were built from. tests/CMakeLists.txt force-includes this header in every
// test source and defines CLUSTERSIM_SOURCE_DIR as a call to this function: the path itself is compiled
// into one translation unit (source_dir.cpp), so the other test sources compile to the same objects in any
// checkout and a compiler cache serves a fresh copy of the repository (CI copies it to a new directory each
// run; with the path on every test's command line each test source missed the cache every time).
#pragma once

const char* clustersim_test_source_dir();
