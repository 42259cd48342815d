// Your own images: a folder laid out as torchvision's ImageFolder reads it,
//   ROOT/train/<class>/*.png|jpg|jpeg|bmp   ROOT/test/<class>/*
// with classes numbered in sorted order of their folder names (as ImageFolder does), decoded once
// at start-up with stb_image (Debian's libstb) into dsgd's uint8 images, so epochs never decode
// again. Every image must have the size of the first; grey images give one channel, colour (and
// RGBA, whose alpha is dropped) three. The normalisation is the train split's per-channel mean and
// standard deviation. Anything wrong (a missing split, a test class the train split lacks, an empty
// class folder, a file that is not an image or does not decode, a size that differs) is a
// DataError naming the file.
#include <fmt/format.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>

#include "core/errors.h"
#include "data/dataset.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

const char* const kHint =
    "an image folder holds train/<class>/*.png|jpg and test/<class>/*.png|jpg (torchvision's "
    "ImageFolder layout)";

bool is_image_file(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".png" || extension == ".jpg" || extension == ".jpeg" || extension == ".bmp";
}

std::vector<std::string> sorted_subfolders(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct Layout {
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
};

using Pixels = std::unique_ptr<unsigned char, decltype(&stbi_image_free)>;

// Decodes one file with `channels` channels (0: as stored), checking its size against `layout`.
Pixels decode(const fs::path& file, const Layout& layout, int* width, int* height, int* stored) {
  Pixels pixels(stbi_load(file.c_str(), width, height, stored, static_cast<int>(layout.channels)),
                &stbi_image_free);
  if (!pixels) {
    throw DataError(
        fmt::format("{}: cannot decode the image: {}", file.string(), stbi_failure_reason()),
        "replace or remove the file; PNG, JPEG and BMP are read");
  }
  if (layout.height > 0 && (*width != layout.width || *height != layout.height)) {
    throw DataError(fmt::format("{}: {}x{} pixels, where the first image has {}x{}", file.string(),
                                *width, *height, layout.width, layout.height),
                    "resize every image to one size first (e.g. with ImageMagick's mogrify)");
  }
  return pixels;
}

Dataset read_split(const fs::path& dir, const std::vector<std::string>& classes, Layout& layout,
                   const std::string& name) {
  std::vector<std::pair<fs::path, int64_t>> files;
  for (const std::string& folder : sorted_subfolders(dir)) {
    const auto it = std::find(classes.begin(), classes.end(), folder);
    if (it == classes.end()) {
      throw DataError(fmt::format("{}: class '{}' is not among the train split's classes",
                                  (dir / folder).string(), folder),
                      "every test class must also be a train class");
    }
    std::vector<fs::path> images;
    for (const auto& entry : fs::directory_iterator(dir / folder)) {
      // Hidden files (.DS_Store and the like) are not the user's data.
      if (!entry.is_regular_file() || entry.path().filename().string().front() == '.') continue;
      if (!is_image_file(entry.path())) {
        throw DataError(entry.path().string() + ": not an image (PNG, JPEG or BMP)",
                        "move files that are not images out of the class folders");
      }
      images.push_back(entry.path());
    }
    if (images.empty()) {
      throw DataError((dir / folder).string() + ": an empty class folder",
                      "remove the folder, or put the class's images in it");
    }
    std::sort(images.begin(), images.end());
    for (const auto& image : images) files.emplace_back(image, it - classes.begin());
  }
  if (files.empty()) throw DataError(dir.string() + ": no images", kHint);
  if (layout.height == 0) {
    int width = 0, height = 0, stored = 0;
    decode(files.front().first, layout, &width, &height, &stored);
    layout = {stored <= 2 ? 1 : 3, height, width};
  }
  Dataset data;
  data.name = name;
  data.num_classes = static_cast<int64_t>(classes.size());
  const int64_t n = static_cast<int64_t>(files.size());
  data.images = torch::empty({n, layout.channels, layout.height, layout.width}, torch::kUInt8);
  data.labels = torch::empty({n}, torch::kLong);
  for (int64_t i = 0; i < n; ++i) {
    int width = 0, height = 0, stored = 0;
    Pixels pixels = decode(files[static_cast<size_t>(i)].first, layout, &width, &height, &stored);
    // stb gives height × width × channels; dsgd keeps channels first.
    torch::Tensor hwc = torch::from_blob(
        pixels.get(), {layout.height, layout.width, layout.channels}, torch::kUInt8);
    data.images[i].copy_(hwc.permute({2, 0, 1}));
    data.labels[i] = files[static_cast<size_t>(i)].second;
  }
  return data;
}

}  // namespace

bool is_image_folder(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(fs::path(path) / "train", ec) &&
         fs::is_directory(fs::path(path) / "test", ec);
}

DatasetPair read_image_folder(const std::string& root) {
  const fs::path dir(root);
  for (const char* split : {"train", "test"}) {
    if (!fs::is_directory(dir / split)) {
      throw DataError(fmt::format("{}: no {} folder", root, split), kHint);
    }
  }
  const std::vector<std::string> classes = sorted_subfolders(dir / "train");
  if (classes.empty()) throw DataError(root + "/train: no class folders", kHint);
  Layout layout;
  DatasetPair pair;
  pair.train = read_split(dir / "train", classes, layout, root);
  pair.test = read_split(dir / "test", classes, layout, root);
  // Per channel, over the train split: mean and standard deviation of the pixels in [0, 1].
  torch::Tensor pixels = pair.train.images.to(torch::kDouble).div_(255.0).transpose(0, 1);
  pixels = pixels.reshape({layout.channels, -1});
  for (int64_t c = 0; c < layout.channels; ++c) {
    pair.normalization.mean.push_back(static_cast<float>(pixels[c].mean().item<double>()));
    // A constant channel would divide by zero: it keeps a unit scale instead.
    const double std = pixels[c].std(/*unbiased=*/false).item<double>();
    pair.normalization.std.push_back(static_cast<float>(std > 0.0 ? std : 1.0));
  }
  return pair;
}

}  // namespace dsgd
