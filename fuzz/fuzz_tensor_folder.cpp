// Tensor folders: the input is train_x.npy beside the valid train_y.npy, test_x.npy and
// test_y.npy of tests/fixtures/tensors_npy/, and the same bytes as train.pt beside the valid
// test.pt of tests/fixtures/tensors_pt/ (files Python wrote).
#include <filesystem>
#include <string>

#include "data/dataset.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const bool ready = [] {
    const fs::path fixtures = fs::path(DSGD_SOURCE_DIR) / "tests/fixtures";
    fs::create_directories(dsgd::fuzz::scratch() / "npy");
    fs::create_directories(dsgd::fuzz::scratch() / "pt");
    for (const char* name : {"train_y.npy", "test_x.npy", "test_y.npy"}) {
      fs::copy_file(fixtures / "tensors_npy" / name, dsgd::fuzz::scratch() / "npy" / name,
                    fs::copy_options::overwrite_existing);
    }
    fs::copy_file(fixtures / "tensors_pt/test.pt", dsgd::fuzz::scratch() / "pt/test.pt",
                  fs::copy_options::overwrite_existing);
    return true;
  }();
  (void)ready;
  dsgd::fuzz::write("npy/train_x.npy", data, size);
  dsgd::fuzz::expect_dsgd_errors_only(
      [&] { dsgd::read_tensor_folder((dsgd::fuzz::scratch() / "npy").string()); });
  dsgd::fuzz::write("pt/train.pt", data, size);
  dsgd::fuzz::expect_dsgd_errors_only(
      [&] { dsgd::read_tensor_folder((dsgd::fuzz::scratch() / "pt").string()); });
  return 0;
}
