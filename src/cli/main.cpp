// Entry point of the dsgd executable; everything lives in the library so tests can reach it.
#include "cli/cli.h"
#include "core/allocator.h"

int main(int argc, char** argv) {
  dsgd::keep_freed_memory();
  return dsgd::cli_main(argc, argv);
}
