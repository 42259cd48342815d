// Runs one job end to end: session (validation, data, model), run folder, the engine the
// algorithm's family and `engine` key need (simulators, or MPI ranks), and the final summary
// whatever happened.
#pragma once

#include <string>

#include "train/config.h"

namespace dsgd {

// Returns the run folder's path (with engine = "mpi": on rank 0; other ranks get ""). Throws the
// error that ended the run (after recording it in summary.json when a folder exists):
// ConfigError/DataError before any training, DivergedError when the loss blew up, anything else as
// is. With `resume`, out_dir is the folder of an earlier run to continue from its last checkpoint.
std::string run_job(const RunConfig& config, const std::string& out_dir, bool resume = false);

}  // namespace dsgd
