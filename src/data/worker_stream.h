// Per-worker deterministic minibatch streams. Worker i's k-th minibatch is a pure function of
// (seed, i, k): each worker walks its own shuffled permutation of the training set, reshuffled
// every pass (a token corpus: each batch is windows at positions drawn from (seed, i, k)). That
// makes simulated and MPI runs see the same data, lets a recorded MPI arrival order be replayed in
// the simulator, and makes resuming a run trivial (only k is state).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <random>

#include "data/dataset.h"

namespace dsgd {

struct Batch {
  torch::Tensor inputs;  // float32 [B, C, H, W], normalised (and augmented when asked); or
                         // int64 tokens [B, T]
  torch::Tensor labels;  // int64 [B]; or the next tokens, int64 [B, T]
};

// Turns uint8 images into normalised float inputs: x = (u8/255 - mean[c]) / std[c]; float32
// images: x = (f - mean[c]) / std[c].
torch::Tensor normalize_images(const torch::Tensor& images_u8, const Normalization& norm);

class WorkerStream {
 public:
  // worker may be any id; evaluation helpers use ids past the last worker.
  WorkerStream(const Dataset& data, Normalization norm, bool augment, int64_t batch_size,
               uint64_t seed, int64_t worker);
  // Windows of seq_len + 1 tokens of the corpus's training stream (data/token_corpus.h): inputs
  // the first seq_len, labels the last. A pass is as many batches as the stream holds windows'
  // worth of tokens, floor(n / (B seq_len)), so an epoch reads about the corpus once.
  WorkerStream(const TokenCorpus& text, int64_t batch_size, int64_t seq_len, uint64_t seed,
               int64_t worker);

  // The k-th minibatch of this worker (k = 0, 1, 2, ...). Passes hold floor(n / B) batches;
  // the last partial batch of each pass is dropped, as PyTorch's drop_last does.
  Batch batch(int64_t k);

  int64_t batches_per_pass() const { return batches_per_pass_; }

 private:
  const torch::Tensor& permutation_for_pass(int64_t pass);

  const Dataset* data_ = nullptr;      // images
  const TokenCorpus* text_ = nullptr;  // or tokens
  int64_t seq_len_ = 0;
  Normalization norm_;
  bool augment_ = false;
  int64_t batch_size_;
  uint64_t seed_;
  int64_t worker_;
  int64_t batches_per_pass_;
  int64_t cached_pass_ = -1;
  torch::Tensor permutation_;  // int64 [n] for cached_pass_
};

// Pads each image by `pad` zero bytes, crops a random HxW window and flips it horizontally with
// probability 1/2, drawing from a generator seeded by `seed`. images: uint8 or float32
// [B, C, H, W] (padding is 0 before normalisation in both).
// Images on a GPU go through augment_crop_flip_gather.
torch::Tensor augment_crop_flip(const torch::Tensor& images_u8, int64_t pad, uint64_t seed);
// The same crop and flip, element for element, as tensor operations on the images' device (the
// draws made on the host, the pixels moved by two gathers): the augmentation of a dataset that
// lives on a GPU.
torch::Tensor augment_crop_flip_gather(const torch::Tensor& images, int64_t pad, uint64_t seed);

// Mixes several integers into one well-spread 64-bit seed (splitmix64 chain).
uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c = 0, uint64_t d = 0);

// A uniform integer in [0, n) without modulo bias, the same on every standard library
// (std::uniform_int_distribution's algorithm, and so its output, differs between them).
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n);

}  // namespace dsgd
