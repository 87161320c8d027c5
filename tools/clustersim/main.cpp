// clustersim: predicts step time, MFU, memory, communication and energy of large-model training.
// Thin CLI: parse arguments, call the library, print, map errors to exit codes (cli_main.cpp).
#include "cli_main.hpp"

int main(int argc, char** argv) { return clustersim::cli::run_cli(argc, argv); }
