// Tensor-folder datasets: torch.save dicts and NumPy .npy pairs, as Python writes them (the
// fixtures in tests/fixtures/ come from `/usr/bin/python3 examples/export_tensors.py --fixtures`;
// no test needs Python), read back value for value; float images normalised and augmented as
// bytes are; wrong dtypes, lengths and truncated files refused with exit 2 naming the file.
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <filesystem>
#include <fstream>

#include "cli_helpers.h"
#include "core/errors.h"
#include "data/dataset.h"
#include "data/worker_stream.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;
using testing::fresh_dir;

const std::string kFixtures = std::string(DSGD_SOURCE_DIR) + "/tests/fixtures/";

// A .npy file (format 1.0) of `tensor`, as np.save writes it.
void write_npy(const fs::path& file, const torch::Tensor& tensor) {
  fs::create_directories(file.parent_path());
  std::string descr = tensor.scalar_type() == torch::kUInt8   ? "|u1"
                      : tensor.scalar_type() == torch::kFloat ? "<f4"
                      : tensor.scalar_type() == torch::kInt   ? "<i4"
                      : tensor.scalar_type() == torch::kLong  ? "<i8"
                                                              : "<f8";
  std::string shape;
  for (int64_t d : tensor.sizes()) shape += std::to_string(d) + ", ";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(file, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header.size() & 0xff),
                          static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  torch::Tensor data = tensor.contiguous();
  out.write(static_cast<const char*>(data.data_ptr()),
            static_cast<std::streamsize>(data.numel() * data.element_size()));
}

void write_pt(const fs::path& file, const torch::Tensor& x, const torch::Tensor& y) {
  fs::create_directories(file.parent_path());
  c10::Dict<std::string, torch::Tensor> dict;
  dict.insert("x", x);
  dict.insert("y", y);
  const std::vector<char> bytes = torch::pickle_save(dict);
  std::ofstream(file, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string error_of(const fs::path& dir) {
  try {
    read_tensor_folder(dir.string());
  } catch (const DataError& e) {
    return e.what();
  }
  return "(no error)";
}

// Image i of the train split is filled with i, of the test split with 100 + i; label i % 3.
TEST(TensorFolder, TorchSaveDictsLoadAsSaved) {
  const DatasetPair pair = load_dataset(kFixtures + "tensors_pt", "", 1);
  ASSERT_EQ(pair.train.images.sizes().vec(), (std::vector<int64_t>{12, 1, 4, 4}));
  EXPECT_EQ(pair.train.images.scalar_type(), torch::kUInt8);
  EXPECT_EQ(pair.test.size(), 6);
  EXPECT_EQ(pair.train.num_classes, 3);
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(pair.train.images[i][0][3][2].item<uint8_t>(), i);
    EXPECT_EQ(pair.train.labels[i].item<int64_t>(), i % 3);
  }
  EXPECT_EQ(pair.test.images[5][0][0][0].item<uint8_t>(), 105);
  // The train split's mean, (0 + ... + 11) / 12 = 5.5, over 255.
  EXPECT_NEAR(pair.normalization.mean[0], 5.5 / 255.0, 1e-7);
}

// Float images are used as they are: image i holds i / 10 (test: 5 + i / 10) in both channels.
TEST(TensorFolder, NpyFloatsLoadAndNormaliseWithoutTheByteScale) {
  const DatasetPair pair = load_dataset(kFixtures + "tensors_npy", "", 1);
  ASSERT_EQ(pair.train.images.sizes().vec(), (std::vector<int64_t>{12, 2, 3, 3}));
  EXPECT_EQ(pair.train.images.scalar_type(), torch::kFloat);
  EXPECT_FLOAT_EQ(pair.train.images[7][1][2][2].item<float>(), 0.7f);
  EXPECT_FLOAT_EQ(pair.test.images[2][0][0][0].item<float>(), 5.2f);
  EXPECT_EQ(pair.test.labels[4].item<int64_t>(), 1);
  // mean 0.55; population std of {0, 0.1, ..., 1.1} = 0.1 * sqrt((12^2 - 1) / 12).
  const double std = 0.1 * std::sqrt(143.0 / 12.0);
  ASSERT_EQ(pair.normalization.mean.size(), 2u);
  EXPECT_NEAR(pair.normalization.mean[1], 0.55, 1e-6);
  EXPECT_NEAR(pair.normalization.std[0], std, 1e-6);
  const torch::Tensor x = normalize_images(pair.train.images.narrow(0, 7, 1), pair.normalization);
  EXPECT_NEAR(x[0][0][0][0].item<float>(), (0.7 - 0.55) / std, 1e-5);
}

// Crop-and-flip moves float pixels exactly as it moves bytes.
TEST(TensorFolder, FloatAugmentationIsTheByteAugmentation) {
  const torch::Tensor bytes = torch::randint(0, 256, {16, 3, 8, 8}).to(torch::kUInt8);
  const torch::Tensor from_bytes = augment_crop_flip(bytes, 4, 42).to(torch::kFloat);
  const torch::Tensor from_floats = augment_crop_flip(bytes.to(torch::kFloat), 4, 42);
  EXPECT_TRUE(torch::equal(from_bytes, from_floats));
  EXPECT_FALSE(torch::equal(from_floats, bytes.to(torch::kFloat)));  // it did move them
}

TEST(TensorFolder, WrongDtypesLengthsAndTruncatedFilesAreRefusedNamingTheFile) {
  const fs::path dir = fresh_dir("tensor_folder_bad");
  const torch::Tensor images = torch::zeros({8, 1, 4, 4}, torch::kUInt8);
  const torch::Tensor labels = torch::arange(8) % 2;
  write_npy(dir / "train_x.npy", images);
  write_npy(dir / "train_y.npy", labels);
  write_npy(dir / "test_x.npy", images);
  write_npy(dir / "test_y.npy", labels.narrow(0, 0, 7));
  std::string e = error_of(dir);
  EXPECT_NE(e.find("test_x.npy holds 8 images but"), std::string::npos) << e;
  EXPECT_NE(e.find("test_y.npy holds 7 labels"), std::string::npos) << e;
  write_npy(dir / "test_y.npy", labels);
  write_npy(dir / "train_x.npy", images.to(torch::kInt));
  e = error_of(dir);
  EXPECT_NE(e.find("train_x.npy: images of dtype Int"), std::string::npos) << e;
  write_npy(dir / "train_x.npy", images);
  write_npy(dir / "train_y.npy", labels.to(torch::kDouble));
  e = error_of(dir);
  EXPECT_NE(e.find("train_y.npy: labels of dtype Double"), std::string::npos) << e;
  write_npy(dir / "train_y.npy", labels);
  fs::resize_file(dir / "train_x.npy", fs::file_size(dir / "train_x.npy") - 5);
  e = error_of(dir);
  EXPECT_NE(e.find("train_x.npy: 123 bytes of data where its shape and dtype need 128"),
            std::string::npos)
      << e;
  fs::resize_file(dir / "train_x.npy", 20);
  e = error_of(dir);
  EXPECT_NE(e.find("train_x.npy: truncated .npy header"), std::string::npos) << e;

  // torch.save dicts: float64 images; images and labels of different lengths.
  const fs::path pt = fresh_dir("tensor_folder_bad_pt");
  write_pt(pt / "train.pt", images.to(torch::kDouble), labels);
  write_pt(pt / "test.pt", images, labels);
  e = error_of(pt);
  EXPECT_NE(e.find("train.pt ('x'): images of dtype Double"), std::string::npos) << e;
  write_pt(pt / "train.pt", images, labels.narrow(0, 0, 5));
  e = error_of(pt);
  EXPECT_NE(e.find("train.pt ('x') holds 8 images but"), std::string::npos) << e;
  std::ofstream(pt / "train.pt") << "not a pickle";
  e = error_of(pt);
  EXPECT_NE(e.find("train.pt: not a file torch.save wrote"), std::string::npos) << e;

  // Through the CLI: exit 2, the file named, nothing written.
  write_pt(pt / "train.pt", images.to(torch::kDouble), labels);
  const fs::path out = dir / "run";
  const testing::CliResult r = testing::run_dsgd(
      "run --set model=mlp --set dataset=" + pt.string() + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("train.pt ('x'): images of dtype Double"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
  fs::remove_all(pt);
}

// The demo the README shows: a tensor folder, 16 dana-zero workers, given normalisation and
// crop-flip augmentation; it trains.
TEST(TensorFolder, TrainsThroughTheCliWithGivenNormalisationAndAugmentation) {
  const fs::path dir = fresh_dir("tensor_folder_run");
  // Dark and bright 16x16 images, float32, two classes.
  torch::manual_seed(3);
  auto split = [](int64_t n) {
    torch::Tensor labels = torch::arange(n) % 2;
    torch::Tensor images =
        torch::rand({n, 1, 16, 16}) * 0.3 + labels.to(torch::kFloat).view({n, 1, 1, 1}) * 0.6;
    return std::make_pair(images, labels);
  };
  auto [train_x, train_y] = split(128);
  auto [test_x, test_y] = split(32);
  write_pt(dir / "train.pt", train_x, train_y);
  write_pt(dir / "test.pt", test_x, test_y);
  const fs::path out = fresh_dir("tensor_folder_out");
  const testing::CliResult r = testing::run_dsgd(
      "run --set dataset=" + dir.string() +
      " --set model=mlp --set algo=dana-zero --set workers=16 --set batch_size=4 --set epochs=3 "
      "--set warmup_epochs=0 --set lr=0.01 --set threads=1 --set augment=crop-flip "
      "--set data.mean=[0.45] --set data.std=[0.3] --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto summary = nlohmann::json::parse(testing::read_file(out / "summary.json"));
  EXPECT_GT(summary["final_test_acc"].get<double>(), 0.9);
  const std::string config = testing::read_file(out / "config.toml");
  EXPECT_NE(config.find("augment = 'crop-flip'"), std::string::npos) << config;
  // A non-positive std is refused before anything runs.
  const testing::CliResult bad = testing::run_dsgd("run --set dataset=" + dir.string() +
                                                   " --set model=mlp --set data.std=[0]");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("data.std"), std::string::npos) << bad.output;
  fs::remove_all(dir);
  fs::remove_all(out);
}

}  // namespace
}  // namespace dsgd
