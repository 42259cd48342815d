// Process-wide memory allocator settings for training. glibc's malloc serves blocks above its
// mmap threshold (128 KiB, adapting up to 32 MiB) with fresh mappings and gives freed heap tops
// back to the kernel, so every training step page-faulted its activations back in: a simulated
// ResNet-20 update cost 1.14x a bare LibTorch step, 1.00-1.03x with the settings below
// (docs/performance.md). Training reuses the same block sizes every step, so keeping freed
// memory is what a long-running trainer wants (PyTorch users get the same from jemalloc).
#pragma once

namespace dsgd {

// Keeps freed memory in the process for reuse (mmap and trim thresholds at 1 GiB). Call once, at
// start-up, before threads allocate.
void keep_freed_memory();

}  // namespace dsgd
