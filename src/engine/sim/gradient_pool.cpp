// Parallel gradient jobs on model replicas; see gradient_pool.h.
#include "engine/sim/gradient_pool.h"

#include <c10/core/StreamGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>

#include "core/errors.h"

namespace dsgd {

GradientPool::GradientPool(const TrainingContext& context, int64_t replicas, int64_t slots)
    : device_(context.device()), slots_(static_cast<size_t>(slots)) {
  replicas_.reserve(static_cast<size_t>(replicas));
  for (int64_t r = 0; r < replicas; ++r) replicas_.push_back(context.make_replica());
  for (auto& replica : replicas_) {
    std::optional<c10::Stream> stream;
    if (!device_.is_cpu()) {
      stream = c10::impl::getDeviceGuardImpl(device_.type())->getStreamFromGlobalPool(device_);
    }
    threads_.emplace_back([this, &replica, stream] { serve(replica, stream); });
  }
}

std::shared_ptr<c10::Event> GradientPool::record_on_current_stream() const {
  if (device_.is_cpu()) return nullptr;
  auto event = std::make_shared<c10::Event>(device_.type());
  event->record(c10::impl::getDeviceGuardImpl(device_.type())->getStream(device_));
  return event;
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
    queue_.push_back({slot, std::move(job), record_on_current_stream()});
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
  if (s.finished) {
    // This thread's stream continues after the job's kernels; and the loss, allocated on the
    // job's stream, is not handed to that stream again while this one may still read it.
    const c10::impl::DeviceGuardImplInterface* gpu = c10::impl::getDeviceGuardImpl(device_.type());
    const c10::Stream current = gpu->getStream(device_);
    s.finished->block(current);
    if (s.loss.defined()) gpu->recordDataPtrOnStream(s.loss.storage().data_ptr(), current);
  }
  return s.loss;
}

void GradientPool::run_each(std::vector<Task> tasks) {
  if (!device_.is_cpu()) {
    // On a GPU a task would have to wait for the submitter's kernels and the submitter for the
    // task's, through events; nothing lends a GPU's replicas yet.
    throw Error("gradient pool: run_each on a GPU", "this is a dsgd bug; report it");
  }
  if (tasks.empty()) return;
  Errand errand;  // on this stack until every task has finished
  {
    std::lock_guard<std::mutex> lock(mutex_);
    errand.remaining = tasks.size();
    for (Task& task : tasks) {
      queue_.push_back({-1,
                        [task = std::move(task)](ModelReplica& replica) {
                          task(replica);
                          return torch::Tensor();
                        },
                        nullptr, &errand});
    }
  }
  work_.notify_all();
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return errand.remaining == 0; });
  if (errand.error) std::rethrow_exception(errand.error);
}

void GradientPool::serve(ModelReplica& replica, std::optional<c10::Stream> stream) {
  // Every kernel this thread queues goes on the replica's stream.
  std::optional<c10::StreamGuard> on_stream;
  if (stream) on_stream.emplace(*stream);
  while (true) {
    Queued job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    torch::Tensor loss;
    std::exception_ptr error;
    std::shared_ptr<c10::Event> finished;
    try {
      if (job.ready) job.ready->block(*stream);
      torch::AutoGradMode enable_grad(true);
      loss = job.job(replica);
      if (stream) {
        finished = std::make_shared<c10::Event>(device_.type());
        finished->record(*stream);
      }
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (job.errand != nullptr) {
        if (error && !job.errand->error) job.errand->error = error;
        --job.errand->remaining;
      } else {
        Slot& s = slots_[static_cast<size_t>(job.slot)];
        s.loss = loss;
        s.error = error;
        s.finished = finished;
        s.done = true;
      }
    }
    finished_.notify_all();
  }
}

}  // namespace dsgd
