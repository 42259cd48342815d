// Tensor folders: the input is train_x.npy beside the valid train_y.npy, test_x.npy and
// test_y.npy of tests/fixtures/tensors_npy/ (files Python wrote). The .npy reader is dsgd's own.
// A torch.save file (train.pt) goes to LibTorch's pickle_load, which this target fed at first:
// it allocates whatever a damaged file's zip header claims (4 GB from a 1 KB file, then a
// DataError after seconds) and so spent the fuzzer's time inside LibTorch; docs/reliability.md.
#include <filesystem>
#include <string>

#include "data/dataset.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const bool ready = [] {
    const fs::path fixtures = fs::path(DSGD_SOURCE_DIR) / "tests/fixtures";
    fs::create_directories(dsgd::fuzz::scratch() / "npy");
    for (const char* name : {"train_y.npy", "test_x.npy", "test_y.npy"}) {
      fs::copy_file(fixtures / "tensors_npy" / name, dsgd::fuzz::scratch() / "npy" / name,
                    fs::copy_options::overwrite_existing);
    }
    return true;
  }();
  (void)ready;
  dsgd::fuzz::write("npy/train_x.npy", data, size);
  dsgd::fuzz::expect_dsgd_errors_only(
      [&] { dsgd::read_tensor_folder((dsgd::fuzz::scratch() / "npy").string()); });
  return 0;
}
