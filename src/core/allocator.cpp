// Allocator settings; see allocator.h.
#include "core/allocator.h"

#include <malloc.h>

namespace dsgd {

void keep_freed_memory() {
  constexpr int kOneGiB = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kOneGiB);
  mallopt(M_TRIM_THRESHOLD, kOneGiB);
}

}  // namespace dsgd
