// Parallel gradient jobs on model replicas; see gradient_pool.h.
#include "engine/sim/gradient_pool.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace dsgd {

GradientPool::GradientPool(const TrainingContext& context, int64_t replicas, int64_t slots)
    : slots_(static_cast<size_t>(slots)) {
  replicas_.reserve(static_cast<size_t>(replicas));
  for (int64_t r = 0; r < replicas; ++r) replicas_.push_back(context.make_replica());
  for (auto& replica : replicas_) {
    threads_.emplace_back([this, &replica] { serve(replica); });
  }
}

GradientPool::~GradientPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  work_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void GradientPool::submit(int64_t slot, Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& s = slots_.at(static_cast<size_t>(slot));
    if (s.busy) {
      throw Error(fmt::format("gradient pool: slot {} already has a job", slot),
                  "this is a dsgd bug; report it");
    }
    s = Slot{};
    s.busy = true;
    queue_.emplace_back(slot, std::move(job));
  }
  work_.notify_one();
}

torch::Tensor GradientPool::wait(int64_t slot) {
  std::unique_lock<std::mutex> lock(mutex_);
  Slot& s = slots_.at(static_cast<size_t>(slot));
  if (!s.busy) {
    throw Error(fmt::format("gradient pool: slot {} has no job", slot),
                "this is a dsgd bug; report it");
  }
  finished_.wait(lock, [&] { return s.done; });
  s.busy = false;
  if (s.error) std::rethrow_exception(s.error);
  return s.loss;
}

void GradientPool::serve(ModelReplica& replica) {
  while (true) {
    std::pair<int64_t, Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    torch::Tensor loss;
    std::exception_ptr error;
    try {
      torch::AutoGradMode enable_grad(true);
      loss = job.second(replica);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Slot& s = slots_[static_cast<size_t>(job.first)];
      s.loss = loss;
      s.error = error;
      s.done = true;
    }
    finished_.notify_all();
  }
}

}  // namespace dsgd
