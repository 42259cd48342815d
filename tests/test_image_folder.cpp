// Image-folder datasets: the layout torchvision's ImageFolder reads, decoded into the same uint8
// images as every built-in dataset; the images a test writes come back byte for byte, classes
// numbered in sorted order, and bad folders are refused naming the file.
#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include <filesystem>
#include <fstream>

#include "cli_helpers.h"
#include "core/errors.h"
#include "data/dataset.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;
using testing::fresh_dir;

// A PNG of `channels` channels whose every byte is `value` + the pixel's index.
void write_png(const fs::path& file, int width, int height, int channels, int value) {
  fs::create_directories(file.parent_path());
  std::vector<unsigned char> pixels(static_cast<size_t>(width * height * channels));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(value + i);
  ASSERT_NE(stbi_write_png(file.c_str(), width, height, channels, pixels.data(), width * channels),
            0);
}

std::string error_of(const fs::path& dir) {
  try {
    read_image_folder(dir.string());
  } catch (const DataError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ImageFolder, ImagesComeBackByteForByteWithSortedClasses) {
  const fs::path dir = fresh_dir("image_folder");
  // "dog" sorts after "cat": labels 1 and 0, whatever order the files were written in.
  write_png(dir / "train/dog/a.png", 4, 3, 1, 100);
  write_png(dir / "train/cat/b.png", 4, 3, 1, 10);
  write_png(dir / "train/cat/a.png", 4, 3, 1, 20);
  write_png(dir / "test/dog/x.png", 4, 3, 1, 50);
  std::ofstream(dir / "train/cat/.DS_Store") << "hidden files are ignored";
  const DatasetPair pair = read_image_folder(dir.string());
  ASSERT_EQ(pair.train.size(), 3);
  EXPECT_EQ(pair.train.num_classes, 2);
  EXPECT_EQ(pair.train.images.sizes().vec(), (std::vector<int64_t>{3, 1, 3, 4}));
  // Sorted by class, then by file name: cat/a (20), cat/b (10), dog/a (100).
  EXPECT_EQ(pair.train.labels[0].item<int64_t>(), 0);
  EXPECT_EQ(pair.train.labels[2].item<int64_t>(), 1);
  EXPECT_EQ(pair.train.images[0][0][0][0].item<uint8_t>(), 20);
  EXPECT_EQ(pair.train.images[1][0][0][0].item<uint8_t>(), 10);
  EXPECT_EQ(pair.train.images[2][0][2][3].item<uint8_t>(), 100 + 11);  // row 2, column 3
  EXPECT_EQ(pair.test.labels[0].item<int64_t>(), 1);
  // Normalisation from the train split: the mean of its 36 bytes / 255, by hand.
  double sum = 0.0;
  for (int base : {100, 10, 20}) {
    for (int i = 0; i < 12; ++i) sum += base + i;
  }
  EXPECT_NEAR(pair.normalization.mean[0], sum / 36.0 / 255.0, 1e-6);
  fs::remove_all(dir);
}

TEST(ImageFolder, ColourAndAlphaGiveThreeChannelsInChannelFirstOrder) {
  const fs::path dir = fresh_dir("image_folder_rgba");
  write_png(dir / "train/a/1.png", 2, 2, 4, 0);  // RGBA: alpha dropped
  write_png(dir / "test/a/1.png", 2, 2, 3, 0);
  const DatasetPair pair = read_image_folder(dir.string());
  EXPECT_EQ(pair.train.images.sizes().vec(), (std::vector<int64_t>{1, 3, 2, 2}));
  // The test image's pixel (0, 1) is bytes 3, 4, 5 (R, G, B).
  EXPECT_EQ(pair.test.images[0][0][0][1].item<uint8_t>(), 3);
  EXPECT_EQ(pair.test.images[0][2][0][1].item<uint8_t>(), 5);
  EXPECT_EQ(pair.normalization.mean.size(), 3u);
  fs::remove_all(dir);
}

TEST(ImageFolder, BadFoldersAreRefusedNamingTheFile) {
  const fs::path dir = fresh_dir("image_folder_bad");
  write_png(dir / "train/a/1.png", 4, 4, 1, 0);
  EXPECT_NE(error_of(dir).find("no test folder"), std::string::npos);
  write_png(dir / "test/b/1.png", 4, 4, 1, 0);
  EXPECT_NE(error_of(dir).find("class 'b' is not among the train split's classes"),
            std::string::npos);
  fs::remove_all(dir / "test/b");
  write_png(dir / "test/a/1.png", 4, 4, 1, 0);
  write_png(dir / "train/a/2.png", 5, 4, 1, 0);
  const std::string size = error_of(dir);
  EXPECT_NE(size.find("2.png: 5x4 pixels, where the first image has 4x4"), std::string::npos)
      << size;
  fs::remove(dir / "train/a/2.png");
  std::ofstream(dir / "train/a/3.png") << "truncated";
  const std::string corrupt = error_of(dir);
  EXPECT_NE(corrupt.find("3.png: cannot decode the image"), std::string::npos) << corrupt;
  fs::remove(dir / "train/a/3.png");
  std::ofstream(dir / "train/a/notes.txt") << "not an image";
  EXPECT_NE(error_of(dir).find("notes.txt: not an image"), std::string::npos);
  fs::remove(dir / "train/a/notes.txt");
  fs::create_directories(dir / "train/b");
  EXPECT_NE(error_of(dir).find("train/b: an empty class folder"), std::string::npos);
  // Through the CLI: exit 2, the file named.
  const testing::CliResult r =
      testing::run_dsgd("run --set model=mlp --set dataset=" + dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("an empty class folder"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

// image_size resizes every image to one square size (mixed sizes are then fine); an image already
// of that size comes back byte for byte, a constant one stays constant. It applies to folders only.
TEST(ImageFolder, ImageSizeResizesEveryImage) {
  const fs::path dir = fresh_dir("image_folder_resize");
  write_png(dir / "train/a/1.png", 4, 4, 1, 10);
  const std::vector<unsigned char> grey(8 * 6, 77);
  fs::create_directories(dir / "train/b");
  ASSERT_NE(stbi_write_png((dir / "train/b/1.png").c_str(), 8, 6, 1, grey.data(), 8), 0);
  write_png(dir / "test/a/1.png", 2, 3, 1, 0);
  EXPECT_NE(error_of(dir).find("8x6 pixels, where the first image has 4x4"), std::string::npos);
  const DatasetPair pair = read_image_folder(dir.string(), 4);
  EXPECT_EQ(pair.train.images.sizes().vec(), (std::vector<int64_t>{2, 1, 4, 4}));
  EXPECT_EQ(pair.test.images.sizes().vec(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_EQ(pair.train.images[0][0][3][2].item<uint8_t>(), 10 + 14);  // unchanged
  EXPECT_TRUE(torch::all(pair.train.images[1] == 77).item<bool>());   // resized, constant
  const testing::CliResult r =
      testing::run_dsgd("run --set model=mlp --set image_size=28 --set epochs=0.01");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("image_size = 28 resizes image folders"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(ImageFolder, TrainsThroughTheCliWithSixteenWorkers) {
  const fs::path dir = fresh_dir("image_folder_run");
  // Two classes a model can tell apart: dark and bright 8x8 images.
  for (int i = 0; i < 64; ++i) {
    write_png(dir / "train/dark" / (std::to_string(i) + ".png"), 8, 8, 1, i);
    write_png(dir / "train/bright" / (std::to_string(i) + ".png"), 8, 8, 1, 150 + i);
  }
  for (int i = 0; i < 8; ++i) {
    write_png(dir / "test/dark" / (std::to_string(i) + ".png"), 8, 8, 1, 30 + i);
    write_png(dir / "test/bright" / (std::to_string(i) + ".png"), 8, 8, 1, 180 + i);
  }
  const fs::path out = fresh_dir("image_folder_out");
  const testing::CliResult r =
      testing::run_dsgd("run --set dataset=" + dir.string() +
                        " --set model=mlp --set algo=dana-zero --set workers=16 --set batch_size=4 "
                        "--set epochs=3 --set warmup_epochs=0 --set lr=0.02 --set eval_every=1 "
                        "--set threads=1 --out " +
                        out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto summary = nlohmann::json::parse(testing::read_file(out / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_EQ(summary["dataset"], dir.string());
  EXPECT_GT(summary["final_test_acc"].get<double>(), 0.9);
  fs::remove_all(dir);
  fs::remove_all(out);
}

}  // namespace
}  // namespace dsgd
