// The dsgd command line: subcommands `run`, `estimate`, `sweep`, `report` and `list`, and the one
// place where errors become exit codes (0 finished, 2 bad usage or input, 3 diverged, 1 anything
// else).
#pragma once

namespace dsgd {

int cli_main(int argc, char** argv);

}  // namespace dsgd
