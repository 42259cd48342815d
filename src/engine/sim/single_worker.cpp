// The single-worker engine: minibatch SGD (or AdamW: the `optimizer` key) on one replica, the
// baseline every distributed algorithm is compared with.
#include "algos/local_optimizer.h"
#include "engine/sim/simulators.h"
#include "engine/sync_learners.h"  // local_optimizer_options: one learner's optimizer

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

void SingleWorker::run() {
  Training& training = training_;
  const TensorMap* resume = resume_;
  const RunConfig& config = training.config();
  FlatModel& model = training.model();
  LocalOptimizer optimizer(local_optimizer_options(config), model.params());
  if (resume != nullptr) {
    model.params().copy_(checkpoint_entry(*resume, "engine/params"));
    if (optimizer.state().defined()) {
      optimizer.state().copy_(checkpoint_entry(*resume, "engine/velocity"));
    }
  }
  training.set_engine_checkpoint([&](TensorMap& checkpoint) {
    checkpoint["engine/params"] = model.params();
    if (optimizer.state().defined()) checkpoint["engine/velocity"] = optimizer.state();
  });
  WorkerStream stream = training.make_stream(0);
  for (int64_t update = training.updates_done(); update < training.total_updates(); ++update) {
    torch::Tensor loss = training.compute_gradient(stream.batch(update));
    optimizer.step(model.params(), model.grads(), training.lr_at(update), update + 1);
    // Simulated time counts samples, as in the multi-worker engines.
    double sim_time = static_cast<double>((update + 1) * config.batch_size);
    training.after_update(update + 1, loss, sim_time, model.params());
  }
}

std::unique_ptr<Engine> make_single_worker(Training& training) {
  return std::make_unique<SingleWorker>(training);
}

}  // namespace dsgd
