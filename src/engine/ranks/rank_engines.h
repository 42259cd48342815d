// The rank engines: every rank of a distributed run runs one, the asynchronous parameter server's
// (a server shard or a worker per rank; async_ranks.h) or the synchronous learners' (a learner per
// rank; sync_ranks.cpp). They speak to the other ranks only through a World (engine/world.h): MPI
// processes (engine = "mpi") or any other. Built through these functions (run/run_plan.cpp's
// table) once the launcher has checked the job's ranks.
#pragma once

#include <memory>

#include "engine/engine.h"
#include "engine/world.h"

namespace dsgd {

std::unique_ptr<Engine> make_async_ranks_engine(Training& training, World& world);
std::unique_ptr<Engine> make_sync_ranks_engine(Training& training, World& world);

}  // namespace dsgd
