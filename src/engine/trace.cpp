// Arrival trace files; see trace.h.
#include "engine/trace.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace dsgd {
namespace {
constexpr const char* kHeader = "# dsgd arrival trace v1";
}

ArrivalTrace read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read trace file '" + path + "'", "check timing.trace");
  auto bad = [&](int line, const std::string& what) {
    return ConfigError(fmt::format("{}:{}: malformed trace: {}", path, line, what),
                       "a trace is written by timing.record_trace; do not edit it by hand");
  };
  std::string line;
  if (!std::getline(in, line) || line != kHeader) throw bad(1, "missing header line");
  ArrivalTrace trace;
  if (!std::getline(in, line) || std::sscanf(line.c_str(), "workers %ld", &trace.workers) != 1 ||
      trace.workers < 1) {
    throw bad(2, "expected 'workers N'");
  }
  for (int number = 3; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    size_t used = 0;
    long long id = -1;
    try {
      id = std::stoll(line, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != line.size()) throw bad(number, "'" + line + "' is not a worker id");
    if (id < 0 || id >= trace.workers) {
      throw bad(number, fmt::format("worker {} out of range for {} workers", id, trace.workers));
    }
    trace.order.push_back(id);
  }
  return trace;
}

ArrivalTrace read_trace(const std::string& path, int64_t workers, int64_t updates) {
  ArrivalTrace trace = read_trace(path);
  if (trace.workers != workers) {
    throw ConfigError(
        fmt::format("trace '{}' has {} workers but workers = {}", path, trace.workers, workers),
        "replay a trace with the same number of workers");
  }
  if (static_cast<int64_t>(trace.order.size()) < updates) {
    throw ConfigError(fmt::format("trace '{}' holds {} arrivals but the run needs {}", path,
                                  trace.order.size(), updates),
                      "shorten epochs or record a longer trace");
  }
  return trace;
}

void write_trace(const std::string& path, const ArrivalTrace& trace) {
  std::string text = fmt::format("{}\nworkers {}\n", kHeader, trace.workers);
  for (int64_t id : trace.order) text += fmt::format("{}\n", id);
  write_file_atomically(path, text);
}

}  // namespace dsgd
