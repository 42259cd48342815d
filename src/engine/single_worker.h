// The single-worker engine: plain minibatch SGD on one replica, the baseline every distributed
// algorithm is compared with.
#pragma once

#include "engine/engine.h"

namespace dsgd {

class SingleWorker : public Engine {
 public:
  explicit SingleWorker(Training& training) : training_(training) {}
  void restore(const TensorMap& checkpoint) override { resume_ = &checkpoint; }
  void run() override;

 private:
  Training& training_;
  const TensorMap* resume_ = nullptr;  // must outlive run()
};

}  // namespace dsgd
