// The memory this host has free for a new allocation: /proc/meminfo's MemAvailable (0 when the
// system does not say). The compute plan and the run's memory check size replicas and servers by
// it; the image-folder reader sizes a folder's decoded images by it before decoding one.
#pragma once

#include <cstdint>

namespace dsgd {

int64_t available_memory_bytes();

}  // namespace dsgd
