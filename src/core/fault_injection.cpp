// Faults at named points; see fault_injection.h.
#include "core/fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace dsgd {
namespace {

struct Fault {
  std::string point;  // empty: none
  std::string kind;
  int at = 1;
  int visits = 0;
};

// DSGD_FAULT, read once.
Fault& fault() {
  static Fault f = [] {
    Fault parsed;
    const char* text = std::getenv("DSGD_FAULT");
    if (text == nullptr) return parsed;
    const std::string spec(text);
    const size_t colon = spec.find(':');
    if (colon == std::string::npos) return parsed;
    parsed.point = spec.substr(0, colon);
    std::string kind = spec.substr(colon + 1);
    if (const size_t at = kind.find('@'); at != std::string::npos) {
      parsed.at = std::atoi(kind.c_str() + at + 1);
      kind.resize(at);
    }
    parsed.kind = kind;
    // Under MPI, only the rank DSGD_FAULT_RANK names meets the fault (every rank inherits the
    // environment); Open MPI and MPICH tell a process its rank before MPI_Init.
    if (const char* only = std::getenv("DSGD_FAULT_RANK")) {
      const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
      if (rank == nullptr) rank = std::getenv("PMI_RANK");
      if (std::atoi(only) != (rank == nullptr ? 0 : std::atoi(rank))) parsed.point.clear();
    }
    return parsed;
  }();
  return f;
}

std::mutex visits_mutex;

// Whether this visit to `point` is the one the fault is set for.
bool due(const char* point) {
  Fault& f = fault();
  if (f.point.empty() || f.point != point) return false;
  std::lock_guard<std::mutex> lock(visits_mutex);
  return ++f.visits == f.at;
}

int signal_of(const std::string& kind) {
  if (kind == "SIGINT") return SIGINT;
  if (kind == "SIGTERM") return SIGTERM;
  if (kind == "SIGKILL") return SIGKILL;
  return 0;
}

}  // namespace

void fault_point(const char* point) {
  const int signal = signal_of(fault().kind);
  if (signal != 0 && due(point)) ::kill(::getpid(), signal);
}

int write_fault(const char* point) {
  const std::string& kind = fault().kind;
  const int error = kind == "ENOSPC" ? ENOSPC : kind == "EROFS" ? EROFS : 0;
  return error != 0 && due(point) ? error : 0;
}

bool state_fault(const char* point, const char* kind) {
  return fault().point == point && fault().kind == kind;
}

}  // namespace dsgd
