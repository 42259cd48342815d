// The simulator engines, one per algorithm family, in one process: single-worker SGD, the
// discrete-event simulator of N asynchronous workers and a parameter server, and the simulator of
// P synchronous learners. They are built through these functions (run/run_plan.cpp's table); their
// classes are private to their files. Each validates its own input on construction (trace files,
// the plan's options), before any run folder exists.
#pragma once

#include <memory>

#include "engine/engine.h"

namespace dsgd {

std::unique_ptr<Engine> make_single_worker(Training& training);
std::unique_ptr<Engine> make_async_simulator(Training& training);
std::unique_ptr<Engine> make_sync_simulator(Training& training);

}  // namespace dsgd
