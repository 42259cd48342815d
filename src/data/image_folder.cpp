// Your own images: a folder laid out as torchvision's ImageFolder reads it,
//   ROOT/train/<class>/*.png|jpg|jpeg|bmp   ROOT/test/<class>/*
// with classes numbered in sorted order of their folder names (as ImageFolder does), decoded once
// at start-up, on every core, with stb_image (Debian's libstb) into dsgd's uint8 images, so epochs
// never decode again. Every image must have the size of the first, unless image_size resizes them
// all (stb_image_resize, to image_size x image_size); grey images give one channel, colour (and
// RGBA, whose alpha is dropped) three. The normalisation is the train split's per-channel mean and
// standard deviation. Anything wrong (a missing split, a test class the train split lacks, an empty
// class folder, a file that is not an image or does not decode, a size that differs) is a
// DataError naming the file.
#include <fmt/format.h>
#include <stb/stb_image.h>
#include <stb/stb_image_resize.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "core/errors.h"
#include "core/host_memory.h"
#include "core/interrupt.h"
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
  bool resize = false;  // resize every image to height x width instead of checking it
};

// At most this many pixels per image (4096 x 4096): a damaged header may claim billions (a
// 28-byte file claimed 21000 x 63480, another 65534 x 511, found by fuzz/fuzz_image_folder.cpp),
// and decoding or resizing that takes gigabytes and seconds to minutes before failing. Training
// images are far smaller; larger ones should be resized once, not at every start.
constexpr int64_t kMaxPixels = int64_t{1} << 24;

struct ImageInfo {
  int width = 0, height = 0, stored_channels = 0;
};

// The image's size and channels from its header alone, checked before anything is decoded.
ImageInfo image_info(const fs::path& file) {
  ImageInfo info;
  if (!stbi_info(file.c_str(), &info.width, &info.height, &info.stored_channels)) {
    throw DataError(
        fmt::format("{}: cannot decode the image: {}", file.string(), stbi_failure_reason()),
        "replace or remove the file; PNG, JPEG and BMP are read");
  }
  if (static_cast<int64_t>(info.width) * info.height > kMaxPixels) {
    throw DataError(fmt::format("{}: {}x{} pixels, more than dsgd decodes ({} million)",
                                file.string(), info.width, info.height, kMaxPixels >> 20),
                    "resize the image first, or replace a damaged file");
  }
  return info;
}

// Decodes `file` into `out` (uint8 [C, H, W] of `layout`), resized or checked to its size.
void decode_into(const fs::path& file, const Layout& layout, torch::Tensor out) {
  const ImageInfo info = image_info(file);
  const bool same_size = info.width == layout.width && info.height == layout.height;
  if (!same_size && !layout.resize) {
    throw DataError(fmt::format("{}: {}x{} pixels, where the first image has {}x{}", file.string(),
                                info.width, info.height, layout.width, layout.height),
                    "set image_size to resize every image to one size, or resize them first");
  }
  int width = 0, height = 0, stored = 0;
  using Pixels = std::unique_ptr<unsigned char, decltype(&stbi_image_free)>;
  Pixels pixels(
      stbi_load(file.c_str(), &width, &height, &stored, static_cast<int>(layout.channels)),
      &stbi_image_free);
  if (!pixels || width != info.width || height != info.height) {
    throw DataError(fmt::format("{}: cannot decode the image: {}", file.string(),
                                pixels ? "its size changed while reading" : stbi_failure_reason()),
                    "replace or remove the file; PNG, JPEG and BMP are read");
  }
  // stb gives height × width × channels; dsgd keeps channels first.
  torch::Tensor hwc = torch::empty({layout.height, layout.width, layout.channels}, torch::kUInt8);
  if (same_size) {
    std::memcpy(hwc.data_ptr<uint8_t>(), pixels.get(), static_cast<size_t>(hwc.numel()));
  } else if (!stbir_resize_uint8(pixels.get(), width, height, 0, hwc.data_ptr<uint8_t>(),
                                 static_cast<int>(layout.width), static_cast<int>(layout.height), 0,
                                 static_cast<int>(layout.channels))) {
    throw DataError(file.string() + ": cannot be resized", "replace or remove the file");
  }
  out.copy_(hwc.permute({2, 0, 1}));
}

// Decodes files[i] into images[i] on every core. Decoding is the slow part of reading a folder;
// each image is independent. The error reported is the first bad file in order, as one thread
// would report it.
void decode_all(const std::vector<std::pair<fs::path, int64_t>>& files, const Layout& layout,
                torch::Tensor images) {
  const int64_t n = static_cast<int64_t>(files.size());
  const int64_t threads = std::min<int64_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int64_t> first_failure(static_cast<size_t>(threads), n);
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int64_t i = t; i < n; i += threads) {
        if (pending_interrupt() != 0) return;  // Ctrl-C or SIGTERM: stop between images
        try {
          decode_into(files[static_cast<size_t>(i)].first, layout, images[i]);
        } catch (...) {
          first_failure[static_cast<size_t>(t)] = i;
          return;
        }
      }
    });
  }
  for (auto& thread : pool) thread.join();
  stop_if_interrupted("decoding the image folder");
  const int64_t bad = *std::min_element(first_failure.begin(), first_failure.end());
  // Again, alone, for its message (stb's failure reason is one global).
  if (bad < n) decode_into(files[static_cast<size_t>(bad)].first, layout, images[bad]);
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
  if (layout.channels == 0) {
    const ImageInfo first = image_info(files.front().first);
    layout.channels = first.stored_channels <= 2 ? 1 : 3;
    if (!layout.resize) {
      layout.height = first.height;
      layout.width = first.width;
    }
  }
  const int64_t n = static_cast<int64_t>(files.size());
  // Sized before a single image is decoded: a folder of large photos (or an image_size typo)
  // would otherwise take the machine's memory first and fail after minutes.
  const int64_t bytes = n * layout.channels * layout.height * layout.width;
  const int64_t available = available_memory_bytes();
  if (available > 0 && bytes > available / 2) {
    throw DataError(
        fmt::format("{}: {} images of {}x{}x{} decode to {:.1f} GB, more than half of the {:.1f} "
                    "GB of memory available",
                    dir.string(), n, layout.channels, layout.height, layout.width,
                    static_cast<double>(bytes) / 1e9, static_cast<double>(available) / 1e9),
        layout.resize ? "choose a smaller image_size" : "resize the images with image_size = S");
  }
  Dataset data;
  data.name = name;
  data.num_classes = static_cast<int64_t>(classes.size());
  data.images = torch::empty({n, layout.channels, layout.height, layout.width}, torch::kUInt8);
  data.labels = torch::empty({n}, torch::kLong);
  decode_all(files, layout, data.images);
  for (int64_t i = 0; i < n; ++i) data.labels[i] = files[static_cast<size_t>(i)].second;
  return data;
}

}  // namespace

bool is_image_folder(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(fs::path(path) / "train", ec) &&
         fs::is_directory(fs::path(path) / "test", ec);
}

DatasetPair read_image_folder(const std::string& root, int64_t image_size) {
  const fs::path dir(root);
  for (const char* split : {"train", "test"}) {
    if (!fs::is_directory(dir / split)) {
      throw DataError(fmt::format("{}: no {} folder", root, split), kHint);
    }
  }
  const std::vector<std::string> classes = sorted_subfolders(dir / "train");
  if (classes.empty()) throw DataError(root + "/train: no class folders", kHint);
  Layout layout;
  if (image_size > 0) layout = {0, image_size, image_size, true};
  DatasetPair pair;
  pair.train = read_split(dir / "train", classes, layout, root);
  pair.test = read_split(dir / "test", classes, layout, root);
  pair.normalization = channel_normalization(pair.train.images);
  return pair;
}

}  // namespace dsgd
