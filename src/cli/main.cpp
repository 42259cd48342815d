// Entry point of the dsgd executable; everything lives in the library so tests can reach it.
#include "cli/cli.h"
#include "core/allocator.h"
#include "core/crash_report.h"

int main(int argc, char** argv) {
  dsgd::install_crash_report("dsgd");
  dsgd::keep_freed_memory();
  return dsgd::cli_main(argc, argv);
}
