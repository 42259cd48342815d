// Minibatch streams for simulated and MPI workers. Every random choice (the shuffle of a pass,
// the crop and flip of a batch) is drawn from a generator seeded by mixing the run seed with the
// worker id and the pass or batch number, and bounded draws are done by hand, so that a batch is
// the same bytes on every machine and standard library, whatever order batches are asked for.
// Augmentation runs on every training batch, so on the CPU it is a byte loop over raw pointers
// and the normalisation a single broadcast tensor expression. A dataset that lives on a GPU
// (TrainingContext uploads it once) is batched, augmented and normalised there: the same draws,
// made on the host (three numbers per image), applied by two gathers.
#include "data/worker_stream.h"

#include <fmt/format.h>

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

// Draws below 2^64 mod n are rejected, leaving a range that is a whole multiple of n.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    uint64_t r = rng();
    if (r >= threshold) return r % n;
  }
}

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

// One image's crop offsets in [−pad, pad] and flip, in the order both augmentations draw them.
struct CropDraw {
  int64_t dy, dx;
  bool flip;
};
CropDraw draw_crop(std::mt19937_64& rng, int64_t pad) {
  const uint64_t offsets = static_cast<uint64_t>(2 * pad + 1);
  CropDraw draw{};
  draw.dy = static_cast<int64_t>(uniform_below(rng, offsets)) - pad;
  draw.dx = static_cast<int64_t>(uniform_below(rng, offsets)) - pad;
  draw.flip = (rng() >> 63) != 0;
  return draw;
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
  if (!images_u8.is_cpu()) {
    scale_t = scale_t.to(images_u8.device());
    shift_t = shift_t.to(images_u8.device());
  }
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
  for (int64_t b = 0; b < batch; ++b) {
    // Output pixel (y, x) of the crop is input pixel (y + dy, x + dx), zero outside the image.
    const auto [dy, dx, flip] = draw_crop(rng, pad);
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
  if (!images.is_cpu()) return augment_crop_flip_gather(images, pad, seed);
  return images.scalar_type() == torch::kUInt8 ? crop_flip<uint8_t>(images, pad, seed)
                                               : crop_flip<float>(images, pad, seed);
}

torch::Tensor augment_crop_flip_gather(const torch::Tensor& images, int64_t pad, uint64_t seed) {
  check_images(images, "augment_crop_flip_gather");
  if (pad < 0) {
    throw Error("augment_crop_flip_gather: pad must be >= 0, got " + std::to_string(pad));
  }
  const int64_t batch = images.size(0), channels = images.size(1), height = images.size(2),
                width = images.size(3);
  // The draws, on the host: row and column offsets into the padded image, and the flips.
  std::vector<int64_t> rows_from(static_cast<size_t>(batch)), cols_from(rows_from.size());
  std::vector<uint8_t> flips(rows_from.size());
  std::mt19937_64 rng(seed);
  for (size_t b = 0; b < rows_from.size(); ++b) {
    const CropDraw draw = draw_crop(rng, pad);
    rows_from[b] = draw.dy + pad;
    cols_from[b] = draw.dx + pad;
    flips[b] = draw.flip ? 1 : 0;
  }
  const auto longs = torch::TensorOptions().dtype(torch::kInt64);
  torch::Tensor dy = torch::from_blob(rows_from.data(), {batch, 1}, longs).to(images.device());
  torch::Tensor dx = torch::from_blob(cols_from.data(), {batch, 1}, longs).to(images.device());
  torch::Tensor flip = torch::from_blob(flips.data(), {batch, 1}, torch::kUInt8)
                           .to(images.device())
                           .to(torch::kBool);
  // Output row y is padded row y + dy + pad; output column x is padded column x + dx + pad, or,
  // flipped, the crop's column width − 1 − x.
  const auto on_device = longs.device(images.device());
  torch::Tensor rows = dy + torch::arange(height, on_device).unsqueeze(0);  // [B, H]
  torch::Tensor cols = dx + torch::arange(width, on_device).unsqueeze(0);   // [B, W]
  cols = torch::where(flip, cols.flip({1}), cols);
  const int64_t padded_width = width + 2 * pad;
  torch::Tensor padded = torch::constant_pad_nd(images, {pad, pad, pad, pad}, 0);
  torch::Tensor cropped_rows = padded.gather(
      2, rows.view({batch, 1, height, 1}).expand({batch, channels, height, padded_width}));
  return cropped_rows.gather(
      3, cols.view({batch, 1, 1, width}).expand({batch, channels, height, width}));
}

WorkerStream::WorkerStream(const Dataset& data, Normalization norm, bool augment,
                           int64_t batch_size, uint64_t seed, int64_t worker)
    : data_(&data),
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

WorkerStream::WorkerStream(const TokenCorpus& text, int64_t batch_size, int64_t seq_len,
                           uint64_t seed, int64_t worker)
    : text_(&text), seq_len_(seq_len), batch_size_(batch_size), seed_(seed), worker_(worker) {
  if (batch_size <= 0 || seq_len <= 0) {
    throw ConfigError(
        fmt::format("batch_size ({}) and seq_len ({}) must be positive", batch_size, seq_len));
  }
  const int64_t tokens = text.train.size(0);
  if (tokens <= seq_len + 1) {
    throw ConfigError(fmt::format("seq_len = {} leaves no window in the {} training tokens of {}",
                                  seq_len, tokens, text.name),
                      "use a shorter seq_len or a longer text");
  }
  batches_per_pass_ = std::max<int64_t>(1, tokens / (batch_size * seq_len));
}

const torch::Tensor& WorkerStream::permutation_for_pass(int64_t pass) {
  if (pass == cached_pass_) return permutation_;
  const int64_t n = data_->size();
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
  if (text_ != nullptr) {
    const torch::Tensor windows =
        training_windows(text_->train, batch_size_, seq_len_, seed_, worker_, k);
    return {windows.narrow(1, 0, seq_len_).contiguous(),
            windows.narrow(1, 1, seq_len_).contiguous()};
  }
  const int64_t pass = k / batches_per_pass_;
  const int64_t position = k % batches_per_pass_;
  torch::Tensor indices = permutation_for_pass(pass).narrow(0, position * batch_size_, batch_size_);
  // A dataset on a GPU is batched there: only the batch's indices travel.
  if (!data_->images.is_cpu()) indices = indices.to(data_->images.device());
  torch::Tensor images = data_->images.index_select(0, indices);
  if (augment_) {
    images = augment_crop_flip(
        images, kAugmentPad,
        mix_seed(seed_, static_cast<uint64_t>(worker_), static_cast<uint64_t>(k), kAugmentTag));
  }
  Batch out;
  out.inputs = normalize_images(images, norm_).contiguous();
  out.labels = data_->labels.index_select(0, indices).contiguous();
  return out;
}

}  // namespace dsgd
