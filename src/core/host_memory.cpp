// Free memory; see host_memory.h.
#include "core/host_memory.h"

#include <fstream>
#include <string>

namespace dsgd {

int64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  int64_t kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace dsgd
