// CIFAR-10 and CIFAR-100 binary batches.
#include "data/dataset.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = dsgd::fuzz::write("batch.bin", data, size);
  dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::read_cifar_bin({file}, false); });
  dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::read_cifar_bin({file}, true); });
  return 0;
}
