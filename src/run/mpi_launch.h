// The launch every rank of an MPI job runs: launch.h's sequence with the steps that make a run of
// real processes agree on its config, its ranks, every failure before training, its folder and its
// checkpoint, and then stop together. The rank engines (engine/ranks/) do the training on the
// MpiWorld (engine/mpi/); this owns the run around them.
#pragma once

#include <string>

#include "train/config.h"

namespace dsgd {

// Every rank calls it; rank 0 owns the run folder and returns its path, the others "".
std::string run_on_mpi(const RunConfig& config, const std::string& out_dir, bool resume);

// For a process that runs several jobs (the Python module): MPI stays initialised after a job,
// since it cannot be initialised twice, and finish_mpi() ends it when the process exits. MPI that
// another library initialised (mpi4py) is never ended by dsgd.
void keep_mpi_between_jobs();
void finish_mpi();
// This process's rank in MPI_COMM_WORLD, or 0 when MPI is not initialised.
int world_rank();

}  // namespace dsgd
