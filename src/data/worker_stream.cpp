// Minibatch streams for simulated and MPI workers. Every random choice (the shuffle of a pass,
// the crop and flip of a batch) is drawn from a generator seeded by mixing the run seed with the
// worker id and the pass or batch number, and bounded draws are done by hand, so that a batch is
// the same bytes on every machine and standard library, whatever order batches are asked for.
// Augmentation runs on every training batch, so it is a byte loop over raw pointers and the
// normalisation a single broadcast tensor expression.
#include "data/worker_stream.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"

namespace dsgd {
namespace {

// Pad of the standard CIFAR augmentation: pad by 4 and crop back to 32x32.
constexpr int64_t kAugmentPad = 4;
// Separates augmentation seeds from permutation seeds, which are mixed from the same numbers.
constexpr uint64_t kAugmentTag = 0x6175676d656e7400;  // "augment"

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform integer in [0, n) without modulo bias: draws below 2^64 mod n are rejected, leaving a
// range that is a whole multiple of n. std::uniform_int_distribution is not used because its
// algorithm, and so its output, differs between standard libraries.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    uint64_t r = rng();
    if (r >= threshold) return r % n;
  }
}

void check_images(const torch::Tensor& images, const char* caller) {
  if (!images.defined() || images.dim() != 4 ||
      (images.scalar_type() != torch::kUInt8 && images.scalar_type() != torch::kFloat)) {
    throw Error(std::string(caller) + ": expected uint8 or float32 images [B, C, H, W]");
  }
}

// Pixels are stored as bytes and scaled to [0, 1]; float images are used as they are.
double unit_of(const torch::Tensor& images) {
  return images.scalar_type() == torch::kUInt8 ? 255.0 : 1.0;
}

// Per-channel values; one value serves all channels.
std::vector<float> per_channel(const std::vector<float>& values, int64_t channels,
                               const char* what) {
  if (static_cast<int64_t>(values.size()) == channels) return values;
  if (values.size() == 1) return std::vector<float>(channels, values[0]);
  throw ConfigError("normalisation " + std::string(what) + " has " + std::to_string(values.size()) +
                        " values for images with " + std::to_string(channels) + " channels",
                    "give one value per channel, or a single value for all");
}

}  // namespace

uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  // Each step is a bijection with full avalanche, so every input bit reaches every output bit.
  uint64_t h = splitmix64(a);
  h = splitmix64(h ^ b);
  h = splitmix64(h ^ c);
  return splitmix64(h ^ d);
}

Normalization channel_normalization(const torch::Tensor& images) {
  check_images(images, "channel_normalization");
  const int64_t channels = images.size(1);
  torch::Tensor values =
      images.to(torch::kDouble).div_(unit_of(images)).transpose(0, 1).reshape({channels, -1});
  Normalization norm;
  for (int64_t c = 0; c < channels; ++c) {
    norm.mean.push_back(static_cast<float>(values[c].mean().item<double>()));
    // A constant channel would divide by zero: it keeps a unit scale instead.
    const double std = values[c].std(/*unbiased=*/false).item<double>();
    norm.std.push_back(static_cast<float>(std > 0.0 ? std : 1.0));
  }
  return norm;
}

torch::Tensor normalize_images(const torch::Tensor& images_u8, const Normalization& norm) {
  check_images(images_u8, "normalize_images");
  const int64_t channels = images_u8.size(1);
  const double unit = unit_of(images_u8);
  std::vector<float> mean = per_channel(norm.mean, channels, "mean");
  std::vector<float> std_dev = per_channel(norm.std, channels, "std");
  // (u8/255 - mean) / std folded into u8 * scale - shift: two passes over the batch, not four.
  std::vector<float> scale(channels);
  std::vector<float> shift(channels);
  for (int64_t c = 0; c < channels; ++c) {
    if (!(std_dev[c] > 0)) {
      throw ConfigError("normalisation std must be positive, got " + std::to_string(std_dev[c]));
    }
    scale[c] = static_cast<float>(1.0 / (unit * std_dev[c]));
    shift[c] = static_cast<float>(static_cast<double>(mean[c]) / std_dev[c]);
  }
  auto options = torch::TensorOptions().dtype(torch::kFloat32);
  torch::Tensor scale_t = torch::from_blob(scale.data(), {1, channels, 1, 1}, options);
  torch::Tensor shift_t = torch::from_blob(shift.data(), {1, channels, 1, 1}, options);
  return images_u8.to(torch::kFloat32).contiguous().mul_(scale_t).sub_(shift_t);
}

template <typename Pixel>
torch::Tensor crop_flip(const torch::Tensor& images, int64_t pad, uint64_t seed) {
  torch::Tensor in = images.contiguous();
  const int64_t batch = in.size(0), channels = in.size(1), height = in.size(2), width = in.size(3);
  torch::Tensor out = torch::empty({batch, channels, height, width}, images.options());
  const Pixel* src_base = in.data_ptr<Pixel>();
  Pixel* dst_base = out.data_ptr<Pixel>();
  const int64_t plane = height * width;

  std::mt19937_64 rng(seed);
  const uint64_t offsets = static_cast<uint64_t>(2 * pad + 1);
  for (int64_t b = 0; b < batch; ++b) {
    // Output pixel (y, x) of the crop is input pixel (y + dy, x + dx), zero outside the image.
    const int64_t dy = static_cast<int64_t>(uniform_below(rng, offsets)) - pad;
    const int64_t dx = static_cast<int64_t>(uniform_below(rng, offsets)) - pad;
    const bool flip = (rng() >> 63) != 0;
    // Crop columns [x0, x1) come from inside the image; the rest is padding.
    const int64_t x0 = std::min(width, std::max<int64_t>(0, -dx));
    const int64_t x1 = std::max(x0, std::min(width, width - dx));
    for (int64_t c = 0; c < channels; ++c) {
      const Pixel* src_plane = src_base + (b * channels + c) * plane;
      Pixel* dst_plane = dst_base + (b * channels + c) * plane;
      for (int64_t y = 0; y < height; ++y) {
        Pixel* dst = dst_plane + y * width;
        const int64_t sy = y + dy;
        if (sy < 0 || sy >= height || x0 == x1) {
          std::fill(dst, dst + width, Pixel{0});
          continue;
        }
        const Pixel* src = src_plane + sy * width + dx;  // src[x] is crop column x
        if (!flip) {
          std::fill(dst, dst + x0, Pixel{0});
          std::copy(src + x0, src + x1, dst + x0);
          std::fill(dst + x1, dst + width, Pixel{0});
        } else {
          // Crop column x lands at width - 1 - x.
          std::fill(dst, dst + width - x1, Pixel{0});
          for (int64_t x = x0; x < x1; ++x) dst[width - 1 - x] = src[x];
          std::fill(dst + width - x0, dst + width, Pixel{0});
        }
      }
    }
  }
  return out;
}

torch::Tensor augment_crop_flip(const torch::Tensor& images, int64_t pad, uint64_t seed) {
  check_images(images, "augment_crop_flip");
  if (pad < 0) throw Error("augment_crop_flip: pad must be >= 0, got " + std::to_string(pad));
  return images.scalar_type() == torch::kUInt8 ? crop_flip<uint8_t>(images, pad, seed)
                                               : crop_flip<float>(images, pad, seed);
}

WorkerStream::WorkerStream(const Dataset& data, Normalization norm, bool augment,
                           int64_t batch_size, uint64_t seed, int64_t worker)
    : data_(data),
      norm_(std::move(norm)),
      augment_(augment),
      batch_size_(batch_size),
      seed_(seed),
      worker_(worker),
      batches_per_pass_(0) {
  check_images(data.images, "WorkerStream");
  if (!data.labels.defined() || data.labels.scalar_type() != torch::kInt64 ||
      data.labels.dim() != 1 || data.labels.size(0) != data.images.size(0)) {
    throw Error("WorkerStream: dataset '" + data.name + "' needs int64 labels [n] matching images");
  }
  const int64_t n = data.size();
  if (batch_size <= 0) {
    throw ConfigError("batch_size must be positive, got " + std::to_string(batch_size));
  }
  if (batch_size > n) {
    throw ConfigError("batch_size " + std::to_string(batch_size) + " is larger than the " +
                          std::to_string(n) + " samples of dataset '" + data.name + "'",
                      "use a batch_size of at most " + std::to_string(n));
  }
  // Fail at construction, not at the first batch, on a normalisation that does not fit.
  per_channel(norm_.mean, data.channels(), "mean");
  per_channel(norm_.std, data.channels(), "std");
  batches_per_pass_ = n / batch_size;
}

const torch::Tensor& WorkerStream::permutation_for_pass(int64_t pass) {
  if (pass == cached_pass_) return permutation_;
  const int64_t n = data_.size();
  permutation_ = torch::arange(n, torch::kInt64);
  int64_t* p = permutation_.data_ptr<int64_t>();
  std::mt19937_64 rng(mix_seed(seed_, static_cast<uint64_t>(worker_), static_cast<uint64_t>(pass)));
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(uniform_below(rng, static_cast<uint64_t>(i + 1)));
    std::swap(p[i], p[j]);
  }
  cached_pass_ = pass;
  return permutation_;
}

Batch WorkerStream::batch(int64_t k) {
  if (k < 0) throw Error("WorkerStream::batch: k must be >= 0, got " + std::to_string(k));
  const int64_t pass = k / batches_per_pass_;
  const int64_t position = k % batches_per_pass_;
  torch::Tensor indices = permutation_for_pass(pass).narrow(0, position * batch_size_, batch_size_);
  torch::Tensor images = data_.images.index_select(0, indices);
  if (augment_) {
    images = augment_crop_flip(
        images, kAugmentPad,
        mix_seed(seed_, static_cast<uint64_t>(worker_), static_cast<uint64_t>(k), kAugmentTag));
  }
  Batch out;
  out.inputs = normalize_images(images, norm_).contiguous();
  out.labels = data_.labels.index_select(0, indices).contiguous();
  return out;
}

}  // namespace dsgd
