// Reader for the IDX format of MNIST and Fashion-MNIST. Files arrive gzip-compressed (as
// distributed) or already unpacked, and a half-finished download or a corrupt archive must fail
// loudly with the file's name rather than yield a dataset that is silently short, so every length
// is checked exactly: the header's dimensions, the payload and the end of the stream.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.h"
#include "data/dataset.h"

namespace dsgd {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension
constexpr char kRedownloadHint[] = "the file is truncated or corrupt; download it again";

// Reads bytes from a gzip or plain file behind one interface, so that the format checks below are
// written once. A plain file is read with stdio rather than through gzread's transparent mode
// because the choice must follow the magic bytes, whatever zlib would guess.
class ByteSource {
 public:
  explicit ByteSource(const std::string& path) : path_(path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw DataError(path + ": file not found", "check the path (or data_dir)");
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw DataError(path + ": not a regular file", "point to the IDX file itself");
    }
    plain_ = std::fopen(path.c_str(), "rb");
    if (plain_ == nullptr) {
      throw DataError(path + ": cannot open: " + std::strerror(errno), "check file permissions");
    }
    unsigned char magic[2] = {0, 0};
    size_t got = std::fread(magic, 1, 2, plain_);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      std::fclose(plain_);
      plain_ = nullptr;
      gz_ = gzopen(path.c_str(), "rb");
      if (gz_ == nullptr) {
        throw DataError(path + ": cannot open gzip stream", "check file permissions");
      }
      // A larger buffer than the default 8 KiB means far fewer reads on a 26 MB archive.
      gzbuffer(gz_, 1 << 20);
    } else {
      std::rewind(plain_);
    }
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  ~ByteSource() {
    if (gz_ != nullptr) gzclose(gz_);
    if (plain_ != nullptr) std::fclose(plain_);
  }

  // Reads up to `size` bytes; fewer only at the end of the data. Corrupt or truncated gzip
  // streams throw here instead of looking like a clean end of file.
  size_t read(void* buffer, size_t size) {
    auto* out = static_cast<unsigned char*>(buffer);
    size_t total = 0;
    while (total < size) {
      size_t got = 0;
      if (gz_ != nullptr) {
        // gzread takes an unsigned length; stay well below its int return range.
        unsigned chunk = static_cast<unsigned>(std::min<size_t>(size - total, 1u << 30));
        int n = gzread(gz_, out + total, chunk);
        if (n < 0) throw_gzip_error();
        got = static_cast<size_t>(n);
      } else {
        got = std::fread(out + total, 1, size - total, plain_);
        if (got == 0 && std::ferror(plain_)) {
          throw DataError(path_ + ": read error: " + std::strerror(errno), kRedownloadHint);
        }
      }
      if (got == 0) break;
      total += got;
    }
    if (total < size && gz_ != nullptr) check_gzip_end();
    return total;
  }

  // True when the payload is followed by nothing more.
  bool at_end() {
    unsigned char extra;
    return read(&extra, 1) == 0;
  }

  bool compressed() const { return gz_ != nullptr; }
  const std::string& path() const { return path_; }

 private:
  // gzread reports a stream cut short as an ordinary end of data (with a partial result) and
  // records the problem in gzerror, so every end of data is checked against it.
  void check_gzip_end() {
    int errnum = Z_OK;
    const char* message = gzerror(gz_, &errnum);
    if (errnum != Z_OK) {
      throw DataError(path_ + ": corrupt or truncated gzip data (" + message + ")",
                      kRedownloadHint);
    }
  }

  [[noreturn]] void throw_gzip_error() {
    int errnum = Z_OK;
    const char* message = gzerror(gz_, &errnum);
    std::string detail = errnum == Z_ERRNO ? std::strerror(errno) : message;
    throw DataError(path_ + ": corrupt or truncated gzip data (" + detail + ")", kRedownloadHint);
  }

  std::string path_;
  std::FILE* plain_ = nullptr;
  gzFile gz_ = nullptr;
};

uint32_t read_big_endian_u32(ByteSource& source, const char* what) {
  unsigned char bytes[4];
  if (source.read(bytes, 4) != 4) {
    throw DataError(source.path() + ": file ends inside the header (reading " + what + ")",
                    kRedownloadHint);
  }
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

std::string hex(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

struct IdxFile {
  std::vector<int64_t> dims;
  torch::Tensor data;  // uint8, shaped as dims
};

// Reads one IDX file whose magic must be `expected_magic` (which also fixes the number of dims).
IdxFile read_idx_file(const std::string& path, uint32_t expected_magic, const char* kind) {
  ByteSource source(path);
  uint32_t magic = read_big_endian_u32(source, "the magic number");
  if (magic != expected_magic) {
    std::string what = path + ": bad magic number " + hex(magic) + ", expected " +
                       hex(expected_magic) + " for an IDX " + kind + " file";
    if ((magic >> 8) == 0x08 && magic != expected_magic) {
      what += " (this is an IDX uint8 file with " + std::to_string(magic & 0xff) + " dimensions)";
    } else if ((magic >> 16) == 0x1f8b) {
      what += " (gzip inside gzip?)";
    }
    throw DataError(what, "pass the " + std::string(kind) +
                              " file of an MNIST-style dataset; it may also be corrupt");
  }
  IdxFile file;
  // Bytes of payload, capped so that a corrupt header cannot overflow the product.
  constexpr uint64_t kMaxBytes = uint64_t{1} << 40;
  uint64_t payload = 1;
  for (uint32_t d = 0; d < (expected_magic & 0xff); ++d) {
    uint32_t dim = read_big_endian_u32(source, "the dimensions");
    if (dim == 0) {
      throw DataError(path + ": dimension " + std::to_string(d) + " is zero", kRedownloadHint);
    }
    payload *= dim;
    if (payload > kMaxBytes) {
      throw DataError(path + ": header declares an impossibly large payload", kRedownloadHint);
    }
    file.dims.push_back(dim);
  }
  if (!source.compressed()) {
    // Checking the size first gives a precise message and avoids allocating for a bad header.
    uint64_t header = 4 + 4 * file.dims.size();
    std::error_code ec;
    uint64_t actual = std::filesystem::file_size(path, ec);
    if (!ec && actual != header + payload) {
      throw DataError(path + ": file has " + std::to_string(actual) + " bytes, but its header " +
                          "declares " + std::to_string(header + payload) + " (" +
                          (actual < header + payload ? "truncated" : "trailing data") + ")",
                      kRedownloadHint);
    }
  }
  // The payload grows as it arrives, so a header that lies about the size costs no more memory
  // than the data really there.
  std::vector<uint8_t> bytes;
  constexpr size_t kChunk = size_t{1} << 22;
  while (bytes.size() < payload) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, payload - bytes.size()));
    size_t old_size = bytes.size();
    bytes.resize(old_size + want);
    size_t got = source.read(bytes.data() + old_size, want);
    if (got < want) {
      throw DataError(path + ": truncated: header declares " + std::to_string(payload) +
                          " data bytes, file holds " + std::to_string(old_size + got),
                      kRedownloadHint);
    }
  }
  if (!source.at_end()) {
    throw DataError(path + ": trailing data after the " + std::to_string(payload) +
                        " data bytes its header declares",
                    kRedownloadHint);
  }
  file.data = torch::empty(file.dims, torch::kUInt8);
  std::memcpy(file.data.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  return file;
}

}  // namespace

Dataset read_idx(const std::string& images_path, const std::string& labels_path,
                 int64_t num_classes) {
  if (num_classes <= 0 || num_classes > 256) {
    throw Error("read_idx: num_classes must be in 1..256, got " + std::to_string(num_classes));
  }
  IdxFile images = read_idx_file(images_path, kImagesMagic, "images");
  IdxFile labels = read_idx_file(labels_path, kLabelsMagic, "labels");
  if (images.dims[0] != labels.dims[0]) {
    throw DataError(images_path + ": holds " + std::to_string(images.dims[0]) + " images but " +
                        labels_path + " holds " + std::to_string(labels.dims[0]) + " labels",
                    "the two files must come from the same split (train or t10k) of one dataset");
  }
  const uint8_t* label_bytes = labels.data.data_ptr<uint8_t>();
  for (int64_t i = 0; i < labels.dims[0]; ++i) {
    if (label_bytes[i] >= num_classes) {
      throw DataError(
          labels_path + ": label " + std::to_string(label_bytes[i]) + " at index " +
              std::to_string(i) + " is out of range 0.." + std::to_string(num_classes - 1),
          "this is not a " + std::to_string(num_classes) + "-class labels file, or it is corrupt");
    }
  }
  Dataset data;
  data.name = std::filesystem::path(images_path).filename().string();
  data.images = images.data.view({images.dims[0], 1, images.dims[1], images.dims[2]});
  data.labels = labels.data.to(torch::kInt64);
  data.num_classes = num_classes;
  return data;
}

}  // namespace dsgd
