// The asynchronous server's link in the simulator: a push or a pull of the whole vector takes
// `cost` simulated time units (the global link's alpha + beta * bytes / servers, the same model
// as the synchronous family's global link, so that simulated time is one clock), and each
// direction is one queue: parameters go out in the order the server sends them, messages arrive
// in the order workers finish computing.
#pragma once

#include <torch/torch.h>

#include <algorithm>

#include "algos/sync_algorithm.h"

namespace dsgd {

class ServerLink {
 public:
  // Every push and pull carries the whole vector, split over `servers` links in parallel, each
  // priced `global` (the run's clock prices, train/clock_prices.h).
  ServerLink(const LinkCost& global, int64_t message_bytes, int64_t servers)
      : cost_(global.alpha +
              global.beta * static_cast<double>(message_bytes) / static_cast<double>(servers)) {}

  // When parameters sent at `now` reach their worker.
  double pull(double now) {
    if (cost_ <= 0.0) return now;
    out_free_ = std::max(now, out_free_) + cost_;
    return out_free_;
  }
  // When a message finished at `finished` reaches the server.
  double push(double finished) {
    if (cost_ <= 0.0) return finished;
    in_free_ = std::max(finished, in_free_) + cost_;
    return in_free_;
  }

  // For checkpoints: when each direction is next free.
  torch::Tensor state() const { return torch::tensor({in_free_, out_free_}, torch::kDouble); }
  void restore(const torch::Tensor& state) {
    in_free_ = state[0].item<double>();
    out_free_ = state[1].item<double>();
  }

 private:
  double cost_;
  double in_free_ = 0.0;   // when the link can take the next push
  double out_free_ = 0.0;  // when it can take the next pull
};

}  // namespace dsgd
