// The launch every rank of an MPI job runs: the sequence that makes a run of real processes agree
// on its config, its ranks, every failure before training, its folder and its checkpoint, and
// then stop together. The engines (engine/mpi/) do the training; this owns the run around them.
#pragma once

#include <string>

#include "train/config.h"

namespace dsgd {

// Every rank calls it; rank 0 owns the run folder and returns its path, the others "".
std::string run_on_mpi(const RunConfig& config, const std::string& out_dir, bool resume);

}  // namespace dsgd
