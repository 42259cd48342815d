// Inputs the fuzzers (fuzz/, scripts/fuzz.sh) found to escape dsgd's own errors, committed in
// tests/fixtures/fuzz/<format>/: each must now end in a ConfigError or DataError, which the CLI
// turns into exit 2 with the file named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/checkpoint.h"
#include "core/errors.h"
#include "data/dataset.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs(const std::string& format) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(DSGD_SOURCE_DIR) / "tests/fixtures/fuzz" / format;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// LibTorch's unpickler threw std::out_of_range on these archives, which parse_checkpoint let
// through (and a torch.save dataset file would have too).
TEST(FuzzRegressions, DamagedCheckpointArchivesAreConfigErrors) {
  const auto files = inputs("checkpoint");
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    EXPECT_THROW(dsgd::parse_checkpoint(bytes_of(file), file.string()), dsgd::ConfigError) << file;
  }
}

// Files whose headers claim 21000 x 63480 and 65534 x 511 pixels: decoding them (or resizing
// with image_size) took gigabytes and, under the sanitizers, longer than the fuzzer's 10 s before
// failing. They are now refused from their headers alone.
TEST(FuzzRegressions, ImagesClaimingBillionsOfPixelsAreRefusedFromTheirHeader) {
  const auto files = inputs("image");
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    const fs::path dir = fs::temp_directory_path() / "dsgd_fuzz_regression_image";
    fs::remove_all(dir);
    fs::create_directories(dir / "train/a");
    fs::create_directories(dir / "test/a");
    fs::copy_file(file, dir / "train/a/x.png");
    fs::copy_file(file, dir / "test/a/x.png");
    for (int64_t image_size : {0, 3}) {
      try {
        dsgd::read_image_folder(dir.string(), image_size);
        ADD_FAILURE() << file << " was read";
      } catch (const dsgd::DataError& e) {
        EXPECT_NE(std::string(e.what()).find("more than dsgd decodes"), std::string::npos)
            << e.what();
      }
    }
    fs::remove_all(dir);
  }
}

// An empty train_x.npy: copying its zero bytes passed a null pointer to memcpy (undefined
// behaviour, reported by UBSan under scripts/fuzz.sh). Now an error about its shape.
TEST(FuzzRegressions, EmptyNpyArraysAreDataErrors) {
  const auto files = inputs("npy");
  ASSERT_FALSE(files.empty());
  const fs::path fixtures = fs::path(DSGD_SOURCE_DIR) / "tests/fixtures/tensors_npy";
  for (const fs::path& file : files) {
    const fs::path dir = fs::temp_directory_path() / "dsgd_fuzz_regression_npy";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* name : {"train_y.npy", "test_x.npy", "test_y.npy"}) {
      fs::copy_file(fixtures / name, dir / name);
    }
    fs::copy_file(file, dir / "train_x.npy");
    EXPECT_THROW(dsgd::read_tensor_folder(dir.string()), dsgd::DataError) << file;
    fs::remove_all(dir);
  }
}

}  // namespace
