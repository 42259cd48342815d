// Single-worker SGD loop; see single_worker.h.
#include "engine/single_worker.h"

#include "algos/local_sgd.h"

namespace dsgd {

void SingleWorker::run() {
  Session& session = session_;
  const TensorMap* resume = resume_;
  const RunConfig& config = session.config();
  FlatModel& model = session.model();
  LocalSgd optimizer({config.momentum, config.nesterov, config.weight_decay}, model.params());
  if (resume != nullptr) {
    model.params().copy_(checkpoint_entry(*resume, "engine/params"));
    if (optimizer.momentum_buffer().defined()) {
      optimizer.momentum_buffer().copy_(checkpoint_entry(*resume, "engine/velocity"));
    }
  }
  session.set_engine_checkpoint([&](TensorMap& checkpoint) {
    checkpoint["engine/params"] = model.params();
    if (optimizer.momentum_buffer().defined()) {
      checkpoint["engine/velocity"] = optimizer.momentum_buffer();
    }
  });
  WorkerStream stream = session.make_stream(0);
  for (int64_t update = session.updates_done(); update < session.total_updates(); ++update) {
    torch::Tensor loss = session.compute_gradient(stream.batch(update));
    optimizer.step(model.params(), model.grads(), session.lr_at(update));
    // Simulated time counts samples, as in the multi-worker engines.
    double sim_time = static_cast<double>((update + 1) * config.batch_size);
    session.after_update(update + 1, loss, sim_time, model.params());
  }
}

}  // namespace dsgd
