// Synthetic classification data for tests and smoke runs, where no dataset may be installed.
// Every class is a blocky random template image and every sample its template plus noise, so a
// small model learns it within a few hundred steps while the noise keeps it from being trivial.
// All arithmetic is integer or exactly rounded IEEE double on raw std::mt19937_64 output (the
// std distributions differ between standard libraries), so the bytes are the same everywhere.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/worker_stream.h"

namespace dsgd {
namespace {

// Templates are constant over kCell x kCell blocks: structure a convolution can pick up.
constexpr int64_t kCell = 4;
// Noise standard deviation in byte units: large enough that single pixels are unreliable.
constexpr double kNoiseStd = 48.0;
constexpr uint64_t kTemplateTag = 0x74656d706c617465;  // "template"
constexpr uint64_t kNoiseTag = 0x6e6f697365000000;     // "noise"

// Approximately normal noise with unit variance from one 64-bit draw: the sum of its four 16-bit
// quarters (Irwin-Hall), which needs no transcendental function and so rounds identically on
// every platform.
double unit_noise(uint64_t bits) {
  int64_t sum = 0;
  for (int q = 0; q < 4; ++q) sum += static_cast<int64_t>((bits >> (16 * q)) & 0xffff);
  // Each quarter is uniform on 0..65535: mean 32767.5, variance (65536^2 - 1) / 12.
  constexpr double kMean = 4 * 32767.5;
  const double std_dev = std::sqrt(4 * (65536.0 * 65536.0 - 1) / 12);
  return (static_cast<double>(sum) - kMean) / std_dev;
}

}  // namespace

Dataset make_synthetic(int64_t n, int64_t channels, int64_t height, int64_t width,
                       int64_t num_classes, uint64_t seed) {
  if (n < 0 || channels <= 0 || height <= 0 || width <= 0 || num_classes <= 0) {
    throw Error("make_synthetic: need n >= 0 and positive shape and class count, got n=" +
                std::to_string(n) + " shape " + std::to_string(channels) + "x" +
                std::to_string(height) + "x" + std::to_string(width) + " classes " +
                std::to_string(num_classes));
  }
  const int64_t pixels = channels * height * width;

  // Templates come from their own generator so that they depend on the seed alone, never on n.
  std::mt19937_64 template_rng(mix_seed(seed, kTemplateTag));
  const int64_t cells_y = (height + kCell - 1) / kCell;
  const int64_t cells_x = (width + kCell - 1) / kCell;
  std::vector<uint8_t> templates(static_cast<size_t>(num_classes * pixels));
  std::vector<uint8_t> cells(static_cast<size_t>(channels * cells_y * cells_x));
  for (int64_t k = 0; k < num_classes; ++k) {
    for (auto& cell : cells) cell = static_cast<uint8_t>(template_rng() >> 56);
    uint8_t* out = templates.data() + k * pixels;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t y = 0; y < height; ++y) {
        for (int64_t x = 0; x < width; ++x) {
          out[(c * height + y) * width + x] =
              cells[(c * cells_y + y / kCell) * cells_x + x / kCell];
        }
      }
    }
  }

  // One sequential noise stream: sample i uses the same draws whatever n is, so a longer set
  // extends a shorter one (the registry splits one set into train and test this way).
  std::mt19937_64 noise_rng(mix_seed(seed, kNoiseTag));
  Dataset data;
  data.name = "synthetic";
  data.num_classes = num_classes;
  data.images = torch::empty({n, channels, height, width}, torch::kUInt8);
  data.labels = torch::empty({n}, torch::kInt64);
  uint8_t* images = data.images.data_ptr<uint8_t>();
  int64_t* labels = data.labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    // Cycling labels keeps classes balanced; the worker streams do the shuffling.
    const int64_t label = i % num_classes;
    labels[i] = label;
    const uint8_t* base = templates.data() + label * pixels;
    uint8_t* out = images + i * pixels;
    for (int64_t p = 0; p < pixels; ++p) {
      double value = std::floor(base[p] + kNoiseStd * unit_noise(noise_rng()) + 0.5);
      out[p] = static_cast<uint8_t>(std::clamp(value, 0.0, 255.0));
    }
  }
  return data;
}

}  // namespace dsgd
