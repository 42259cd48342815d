// Arrival traces: the order in which workers' messages reached the server, one worker id per
// line. The simulator writes one on request and can replay one instead of drawing times, which
// is how an MPI run's order is reproduced in the simulator.
#pragma once

#include <string>
#include <vector>

namespace dsgd {

struct ArrivalTrace {
  int64_t workers = 0;
  std::vector<int64_t> order;
};

// Throws ConfigError naming the file and line for a missing file, a bad header, a worker id out
// of range or a non-integer line.
ArrivalTrace read_trace(const std::string& path);
// read_trace, for a run of `workers` workers and `updates` updates: throws ConfigError when the
// trace has another number of workers or fewer arrivals.
ArrivalTrace read_trace(const std::string& path, int64_t workers, int64_t updates);
void write_trace(const std::string& path, const ArrivalTrace& trace);

}  // namespace dsgd
