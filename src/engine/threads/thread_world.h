// A World whose ranks are threads of one process (engine/world.h): messages are copied between
// mailboxes, collectives are an all-gather, and every learner mean is summed in rank order with
// the simulator's own kernel, so that its results are the simulator's bit for bit. The rank
// engines run on it unchanged: it is how the tests drive them without MPI, and the proof that they
// need none. Each rank's thread builds its own training (model, data, rule) as an MPI rank does.
#pragma once

#include <memory>
#include <vector>

#include "engine/world.h"

namespace dsgd {

// The worlds of `ranks` ranks: worlds[r] for the thread that runs rank r.
std::vector<std::unique_ptr<World>> make_thread_worlds(int ranks);

}  // namespace dsgd
