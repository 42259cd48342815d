// IDX image files (MNIST, Fashion-MNIST), gzip or plain; the labels file is a fixed valid one
// for 2 images, so the reader also meets counts that disagree.
#include "data/dataset.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const uint8_t kLabels[] = {0, 0, 8, 1, 0, 0, 0, 2, 3, 7};
  static const std::string labels = dsgd::fuzz::write("labels.idx", kLabels, sizeof kLabels);
  const std::string images = dsgd::fuzz::write("images.idx", data, size);
  dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::read_idx(images, labels); });
  return 0;
}
