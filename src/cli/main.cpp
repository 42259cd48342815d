// Entry point of the dsgd executable; everything lives in the library so tests can reach it.
#include "cli/cli.h"

int main(int argc, char** argv) { return dsgd::cli_main(argc, argv); }
