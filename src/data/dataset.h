// In-memory datasets: uint8 images plus int64 labels, the one representation every reader
// produces and every worker stream consumes. Keeping raw bytes (not floats) makes a 50k-image
// CIFAR-10 train set 150 MB instead of 600 MB and lets augmentation crop bytes cheaply. Tensors
// a user preprocessed may be float32 instead (tensor folders), used without the 1/255 scaling.
#pragma once

#include <torch/torch.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "data/token_corpus.h"

namespace dsgd {

struct Dataset {
  std::string name;
  torch::Tensor images;  // uint8 (or float32) [n, channels, height, width], contiguous
  torch::Tensor labels;  // int64 [n], each in [0, num_classes)
  int64_t num_classes = 0;

  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
  int64_t channels() const { return images.size(1); }
  int64_t height() const { return images.size(2); }
  int64_t width() const { return images.size(3); }
};

// Per-channel normalisation applied after scaling bytes to [0, 1]: x = (u8/255 - mean) / std
// (float32 images: x = (f - mean) / std).
struct Normalization {
  std::vector<float> mean;
  std::vector<float> std;
};

// The per-channel mean and standard deviation of `images` (bytes scaled to [0, 1]); a constant
// channel keeps a unit std.
Normalization channel_normalization(const torch::Tensor& images);

// A train/test pair as a named dataset ships it, with how its batches are to be prepared; or,
// for language modelling, a token corpus (train and test then hold no images).
struct DatasetPair {
  Dataset train;
  Dataset test;
  Normalization normalization;
  bool augment = false;  // pad-4 random crop + horizontal flip on training batches (CIFAR)
  std::shared_ptr<const TokenCorpus> text;  // set: a language model's tokens

  bool is_text() const { return text != nullptr; }
};

// IDX files (MNIST, Fashion-MNIST), gzip-compressed or plain: chosen by the gzip magic bytes,
// not the file name. Validates magic numbers, dimensions, counts agreeing between the two files,
// file lengths and label ranges; throws DataError naming the file and what is wrong.
Dataset read_idx(const std::string& images_path, const std::string& labels_path,
                 int64_t num_classes = 10);

// CIFAR-10 / CIFAR-100 binary format: records of <label byte(s)><3072 pixel bytes>, several
// files concatenated in order. CIFAR-100 records carry <coarse><fine>; the fine label is used.
Dataset read_cifar_bin(const std::vector<std::string>& paths, bool cifar100);

// Deterministic synthetic classification data: each class has a random template image and every
// sample is its template plus noise, so that a model can learn it quickly. For tests and smoke.
Dataset make_synthetic(int64_t n, int64_t channels, int64_t height, int64_t width,
                       int64_t num_classes, uint64_t seed);

// image_folder.cpp: a folder with train/<class>/ and test/<class>/ images (torchvision's
// ImageFolder layout), decoded once; DataError naming the file for anything that does not fit.
// image_size > 0 resizes every image to image_size x image_size; 0 requires one size throughout.
bool is_image_folder(const std::string& path);
DatasetPair read_image_folder(const std::string& root, int64_t image_size = 0);

// tensor_files.cpp: a folder with train.pt/test.pt (torch.save of {"x", "y"}) or
// train_x.npy/train_y.npy/test_x.npy/test_y.npy; DataError naming the file for anything wrong.
bool is_tensor_folder(const std::string& path);
DatasetPair read_tensor_folder(const std::string& root);

// Named datasets: "fashion-mnist", "mnist", "cifar10", "cifar100", "synthetic", or a path (a name
// with a '/', or an existing folder): an image folder or a tensor folder, by what it holds.
// data_dir empty means the dataset's default place (Debian's package for fashion-mnist).
// image_size: see read_image_folder; refused for any other dataset.
DatasetPair load_dataset(const std::string& name, const std::string& data_dir, uint64_t seed,
                         int64_t image_size = 0);

struct DatasetInfo {
  std::string name;
  std::string description;
  std::string default_dir;
};
const std::vector<DatasetInfo>& dataset_registry();

}  // namespace dsgd
