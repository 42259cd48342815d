// Tensors you already have: a folder holding either
//   train.pt, test.pt                    each torch.save({"x": images, "y": labels}), or
//   train_x.npy, train_y.npy, test_x.npy, test_y.npy   NumPy arrays (np.save)
// for data that is already preprocessed. Images are [n, C, H, W] or [n, H, W] (one channel),
// uint8 (pixels, scaled by 1/255 as every dataset here) or float32 (used as they are); labels are
// integers in [0, classes), classes being the largest label plus one. LibTorch reads torch.save's
// files (torch::pickle_load); xtensor (Debian's libxtensor-dev) parses the .npy header, and the
// data is read straight into a tensor after its size is checked against the file. Anything that
// does not fit (a wrong dtype, a count of images and labels that differ, train and test of other
// shapes, a negative label, a truncated file) is a DataError naming the file.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/serialize.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <xtensor/xnpy.hpp>

#include "core/errors.h"
#include "data/dataset.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

const char* const kHint =
    "a tensor folder holds train.pt and test.pt (each torch.save({'x': images, 'y': labels})), "
    "or train_x.npy, train_y.npy, test_x.npy and test_y.npy";

std::vector<char> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string() + ": cannot be read", kHint);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The NumPy typestring (without quotes, e.g. "|u1", "<f4", "<i8") as a LibTorch dtype.
torch::ScalarType npy_dtype(const fs::path& file, const std::string& typestring) {
  static const std::vector<std::pair<std::string, torch::ScalarType>> kTypes = {
      {"|u1", torch::kUInt8}, {"<u1", torch::kUInt8}, {"|i1", torch::kInt8},
      {"<i2", torch::kInt16}, {"<i4", torch::kInt32}, {"<i8", torch::kInt64},
      {"<f4", torch::kFloat}, {"<f8", torch::kDouble}};
  for (const auto& [name, type] : kTypes) {
    if (typestring == name) return type;
  }
  throw DataError(fmt::format("{}: NumPy dtype '{}' is not read", file.string(), typestring),
                  "save images as uint8 or float32 and labels as integers (little-endian)");
}

// One .npy file as a tensor, its size checked against the file before anything is allocated;
// the data is read straight into the tensor, never held twice.
torch::Tensor read_npy(const fs::path& file) {
  const std::string where = file.string();
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  const size_t file_size = static_cast<size_t>(fs::file_size(file, ec));
  if (!in || ec) throw DataError(where + ": cannot be read", kHint);
  // Magic (6), version (2), header length (2 in version 1.0, 4 in 2.0 and 3.0).
  char preamble[12] = {};
  in.read(preamble, sizeof preamble);
  const auto preamble_size = static_cast<size_t>(in.gcount());
  in.clear();
  constexpr size_t kPreamble = 10;
  if (preamble_size < kPreamble || std::memcmp(preamble, "\x93NUMPY", 6) != 0) {
    throw DataError(where + ": not a NumPy .npy file (bad magic)", kHint);
  }
  const auto major = static_cast<unsigned char>(preamble[6]);
  size_t header_length = 0, header_start = 0;
  if (major == 1) {
    header_length = static_cast<unsigned char>(preamble[8]) |
                    (static_cast<size_t>(static_cast<unsigned char>(preamble[9])) << 8);
    header_start = kPreamble;
  } else if (major == 2 || major == 3) {
    if (preamble_size < 12) throw DataError(where + ": truncated .npy header", kHint);
    for (int i = 3; i >= 0; --i) {
      header_length = (header_length << 8) | static_cast<unsigned char>(preamble[8 + i]);
    }
    header_start = 12;
  } else {
    throw DataError(fmt::format("{}: .npy format version {} is not read", where, major), kHint);
  }
  if (header_length == 0 || header_start + header_length > file_size) {
    throw DataError(where + ": truncated .npy header", kHint);
  }
  std::string header(header_length, '\0');
  in.seekg(static_cast<std::streamoff>(header_start));
  in.read(header.data(), static_cast<std::streamsize>(header_length));
  // xtensor's parser expects a well-formed dict: check what it relies on first.
  if (header.back() != '\n' || header.front() != '{' ||
      header.find("'descr'") == std::string::npos || header.find("'shape'") == std::string::npos ||
      header.find("'fortran_order'") == std::string::npos) {
    throw DataError(where + ": malformed .npy header", kHint);
  }
  std::string typestring;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  try {
    xt::detail::parse_header(header, typestring, &fortran_order, shape);
  } catch (const std::exception& e) {
    throw DataError(fmt::format("{}: malformed .npy header ({})", where, e.what()), kHint);
  }
  if (fortran_order) {
    throw DataError(where + ": a Fortran-ordered array",
                    "save it C-ordered: np.save(path, np.ascontiguousarray(a))");
  }
  const torch::ScalarType dtype = npy_dtype(file, typestring);
  std::vector<int64_t> sizes;
  size_t count = 1;
  for (std::size_t d : shape) {
    // Guards the product against overflow before it is compared with the file.
    if (d > file_size || (d > 0 && count > file_size / d)) {
      throw DataError(fmt::format("{}: its shape needs more bytes than the file has", where),
                      kHint);
    }
    count *= d;
    sizes.push_back(static_cast<int64_t>(d));
  }
  const size_t data_bytes = count * torch::elementSize(dtype);
  const size_t data_start = header_start + header_length;
  if (file_size - data_start != data_bytes) {
    throw DataError(fmt::format("{}: {} bytes of data where its shape and dtype need {}", where,
                                file_size - data_start, data_bytes),
                    "the file is truncated or not what its header says; save it again");
  }
  torch::Tensor tensor = torch::empty(sizes, dtype);
  // An empty array has no storage to read into (found by fuzzing: a null destination).
  if (data_bytes > 0) {
    in.seekg(static_cast<std::streamoff>(data_start));
    in.read(static_cast<char*>(tensor.data_ptr()), static_cast<std::streamsize>(data_bytes));
    if (static_cast<size_t>(in.gcount()) != data_bytes) {
      throw DataError(where + ": changed or unreadable while being read", kHint);
    }
  }
  return tensor;
}

// torch.save({"x": ..., "y": ...}) as the two tensors.
std::pair<torch::Tensor, torch::Tensor> read_pt(const fs::path& file) {
  torch::IValue value;
  try {
    value = torch::pickle_load(read_bytes(file));
  } catch (const c10::Error& e) {
    throw DataError(fmt::format("{}: not a file torch.save wrote ({})", file.string(),
                                e.what_without_backtrace()),
                    kHint);
  } catch (const std::exception& e) {
    // LibTorch's unpickler also throws plain std::out_of_range on some damaged files.
    throw DataError(fmt::format("{}: not a file torch.save wrote ({})", file.string(), e.what()),
                    kHint);
  }
  if (!value.isGenericDict()) {
    throw DataError(file.string() + ": holds no dict", kHint);
  }
  const c10::Dict<torch::IValue, torch::IValue> dict = value.toGenericDict();
  auto tensor_at = [&](const char* key) {
    const auto it = dict.find(torch::IValue(std::string(key)));
    if (it == dict.end() || !it->value().isTensor()) {
      throw DataError(fmt::format("{}: no tensor under '{}'", file.string(), key), kHint);
    }
    return it->value().toTensor().contiguous();
  };
  return {tensor_at("x"), tensor_at("y")};
}

std::string shape_of(c10::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes.begin(), sizes.end(), ", "));
}

// Images and labels of one split as a Dataset, checked.
Dataset make_split(torch::Tensor images, torch::Tensor labels, const std::string& images_file,
                   const std::string& labels_file, const std::string& name) {
  if (images.scalar_type() != torch::kUInt8 && images.scalar_type() != torch::kFloat) {
    throw DataError(
        fmt::format("{}: images of dtype {}", images_file, c10::toString(images.scalar_type())),
        "save images as uint8 (pixels) or float32 (preprocessed)");
  }
  if (images.dim() == 3) images = images.unsqueeze(1);
  if (images.dim() != 4 || images.size(0) == 0) {
    throw DataError(fmt::format("{}: images of shape {}", images_file, shape_of(images.sizes())),
                    "images are [n, C, H, W] or [n, H, W], n > 0");
  }
  if (!c10::isIntegralType(labels.scalar_type(), /*includeBool=*/false) || labels.dim() != 1) {
    throw DataError(fmt::format("{}: labels of dtype {} and shape {}", labels_file,
                                c10::toString(labels.scalar_type()), shape_of(labels.sizes())),
                    "labels are integers [n]");
  }
  if (labels.size(0) != images.size(0)) {
    throw DataError(fmt::format("{} holds {} images but {} holds {} labels", images_file,
                                images.size(0), labels_file, labels.size(0)),
                    "save one label per image");
  }
  if (images.scalar_type() == torch::kFloat && !torch::isfinite(images).all().item<bool>()) {
    throw DataError(images_file + ": images hold NaN or infinite values", kHint);
  }
  Dataset data;
  data.name = name;
  data.images = images.contiguous();
  data.labels = labels.to(torch::kLong).contiguous();
  if (data.labels.min().item<int64_t>() < 0) {
    throw DataError(labels_file + ": a negative label", "labels are 0, 1, ..., classes - 1");
  }
  return data;
}

}  // namespace

bool is_tensor_folder(const std::string& path) {
  std::error_code ec;
  const fs::path dir(path);
  return fs::is_regular_file(dir / "train.pt", ec) || fs::is_regular_file(dir / "train_x.npy", ec);
}

DatasetPair read_tensor_folder(const std::string& root) {
  const fs::path dir(root);
  DatasetPair pair;
  const bool torch_files = fs::is_regular_file(dir / "train.pt");
  for (const char* split : {"train", "test"}) {
    Dataset data;
    if (torch_files) {
      const fs::path file = dir / (std::string(split) + ".pt");
      if (!fs::is_regular_file(file)) throw DataError(file.string() + ": missing", kHint);
      auto [images, labels] = read_pt(file);
      data = make_split(images, labels, file.string() + " ('x')", file.string() + " ('y')", root);
    } else {
      const fs::path x = dir / (std::string(split) + "_x.npy");
      const fs::path y = dir / (std::string(split) + "_y.npy");
      for (const fs::path& file : {x, y}) {
        if (!fs::is_regular_file(file)) throw DataError(file.string() + ": missing", kHint);
      }
      data = make_split(read_npy(x), read_npy(y), x.string(), y.string(), root);
    }
    (std::string(split) == "train" ? pair.train : pair.test) = std::move(data);
  }
  const auto shape = [](const Dataset& d) { return d.images.sizes().slice(1); };
  if (shape(pair.train) != shape(pair.test) ||
      pair.train.images.scalar_type() != pair.test.images.scalar_type()) {
    throw DataError(
        fmt::format("{}: train images are {} {}, test images {} {}", root,
                    c10::toString(pair.train.images.scalar_type()), shape_of(shape(pair.train)),
                    c10::toString(pair.test.images.scalar_type()), shape_of(shape(pair.test))),
        "save both splits with one image shape and dtype");
  }
  const int64_t classes =
      1 + std::max(pair.train.labels.max().item<int64_t>(), pair.test.labels.max().item<int64_t>());
  pair.train.num_classes = pair.test.num_classes = classes;
  pair.normalization = channel_normalization(pair.train.images);
  return pair;
}

}  // namespace dsgd
