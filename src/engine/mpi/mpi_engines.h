// The MPI engines: every rank runs one, the asynchronous parameter server's (a server shard or a
// worker per rank; mpi_async.h) or the synchronous learners' (a learner per rank). Built through
// these functions (run/run_plan.cpp's table) once run/mpi_launch.cpp has checked the job's ranks.
#pragma once

#include <memory>

#include "engine/engine.h"

namespace dsgd {

class MpiWorld;  // engine/mpi/mpi_world.h; declared only, so that run_plan.cpp needs no <mpi.h>

std::unique_ptr<Engine> make_mpi_async_engine(Training& training, MpiWorld& world);
std::unique_ptr<Engine> make_mpi_sync_engine(Training& training, MpiWorld& world);

}  // namespace dsgd
