// Reader for the "binary version" of CIFAR-10 and CIFAR-100: fixed-size records with no header,
// so a file's length is the only integrity check there is, and it is checked exactly. Pixels are
// stored channel-major, which is already the [C, H, W] layout the rest of dsgd uses.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.h"
#include "data/dataset.h"

namespace dsgd {
namespace {

constexpr int64_t kChannels = 3;
constexpr int64_t kSide = 32;
constexpr int64_t kPixels = kChannels * kSide * kSide;  // 3072
constexpr char kRedownloadHint[] =
    "the file is truncated or not a CIFAR binary file; download the binary version again from "
    "https://www.cs.toronto.edu/~kriz/cifar.html";

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Checks that a file exists and holds a whole, non-zero number of records; returns its size.
uint64_t checked_size(const std::string& path, int64_t record_size) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw DataError(path + ": file not found", "check the path (or data_dir)");
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw DataError(path + ": not a regular file", "point to the CIFAR .bin file itself");
  }
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw DataError(path + ": cannot get file size: " + ec.message(), kRedownloadHint);
  if (size == 0 || size % record_size != 0) {
    throw DataError(path + ": size " + std::to_string(size) + " bytes is not a non-zero multiple " +
                        "of the " + std::to_string(record_size) + "-byte record",
                    kRedownloadHint);
  }
  return size;
}

std::vector<uint8_t> read_file(const std::string& path, uint64_t size) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throw DataError(path + ": cannot open: " + std::strerror(errno), "check file permissions");
  }
  std::vector<uint8_t> bytes(size);
  size_t got = std::fread(bytes.data(), 1, bytes.size(), file.get());
  // A file that changes size under us (still being copied) must not pass as complete.
  if (got != bytes.size() || std::fgetc(file.get()) != EOF) {
    throw DataError(path + ": read " + std::to_string(got) + " of " + std::to_string(size) +
                        " bytes (file changed while reading, or read error)",
                    kRedownloadHint);
  }
  return bytes;
}

}  // namespace

Dataset read_cifar_bin(const std::vector<std::string>& paths, bool cifar100) {
  if (paths.empty()) throw Error("read_cifar_bin: no files given");
  const int64_t label_bytes = cifar100 ? 2 : 1;
  const int64_t record_size = label_bytes + kPixels;
  const int64_t num_classes = cifar100 ? 100 : 10;
  const int64_t num_coarse = 20;

  // Sizes first, so that a bad last file fails before 150 MB are read, and so that only one
  // file at a time is held next to the output.
  std::vector<uint64_t> sizes;
  int64_t total = 0;
  for (const auto& path : paths) {
    sizes.push_back(checked_size(path, record_size));
    total += static_cast<int64_t>(sizes.back()) / record_size;
  }

  Dataset data;
  data.name = cifar100 ? "cifar100" : "cifar10";
  data.num_classes = num_classes;
  data.images = torch::empty({total, kChannels, kSide, kSide}, torch::kUInt8);
  data.labels = torch::empty({total}, torch::kInt64);
  uint8_t* images = data.images.data_ptr<uint8_t>();
  int64_t* labels = data.labels.data_ptr<int64_t>();
  int64_t out = 0;
  for (size_t f = 0; f < paths.size(); ++f) {
    const std::vector<uint8_t> bytes = read_file(paths[f], sizes[f]);
    int64_t records = static_cast<int64_t>(bytes.size()) / record_size;
    for (int64_t r = 0; r < records; ++r, ++out) {
      const uint8_t* record = bytes.data() + r * record_size;
      int64_t label = record[label_bytes - 1];
      int64_t coarse = cifar100 ? record[0] : 0;
      if (label >= num_classes || coarse >= num_coarse) {
        bool bad_coarse = coarse >= num_coarse;
        throw DataError(paths[f] + ": " + (bad_coarse ? "coarse label " : "label ") +
                            std::to_string(bad_coarse ? coarse : label) + " of record " +
                            std::to_string(r) + " is out of range 0.." +
                            std::to_string((bad_coarse ? num_coarse : num_classes) - 1),
                        std::string(cifar100 ? "is this CIFAR-10 data read as CIFAR-100? "
                                             : "is this CIFAR-100 data read as CIFAR-10? ") +
                            kRedownloadHint);
      }
      labels[out] = label;
      std::memcpy(images + out * kPixels, record + label_bytes, kPixels);
    }
  }
  return data;
}

}  // namespace dsgd
