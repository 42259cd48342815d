// An asynchronous worker rank: waits for the learning rate and its parameters (one slice from each
// server shard), computes its gradient (or takes its H local steps), turns it into its rule's
// message and sends every shard its slice; answers shard 0's requests for its state and its
// stop. See async_ranks.h.
#include "core/fault_injection.h"
#include "core/interrupt.h"
#include "engine/ranks/async_ranks_parts.h"
#include "engine/worker_message.h"

namespace dsgd {

using namespace async_protocol;  // NOLINT(build/namespaces): the protocol's tags and slices

std::string AsyncRanksEngine::Worker::state_bytes() {
  TensorMap state;
  for (auto& [name, tensor] : rule->state()) state["rule/" + name] = tensor;
  state["next_batch"] = torch::tensor(next_batch, torch::kLong);
  return checkpoint_bytes(state);
}

void AsyncRanksEngine::Worker::restore_state(const std::string& bytes) {
  TensorMap state = parse_checkpoint(bytes, "worker state");
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : rule->state()) {
    tensor.copy_(checkpoint_entry(state, "rule/" + name));
  }
  next_batch = checkpoint_entry(state, "next_batch").item<int64_t>();
}

void AsyncRanksEngine::run_worker() {
  Worker& w = *worker_;
  Transport& transport = world_.transport();
  FlatModel& model = training_.model();
  torch::NoGradGuard no_grad;
  // On the CPU parameters arrive straight in the model and the message leaves from the rule's own
  // buffer: no copy on either side, which at 11M parameters is most of a worker's message cost.
  // On a GPU both go through pinned host buffers (core/host_staging.h).
  torch::Tensor params = model.params();
  HostStaging& staging = *w.staging;
  torch::Tensor params_buffer, message_buffer;
  std::vector<Slice> slices;
  for (int64_t k = 0; k < shards_; ++k) slices.push_back(shard_slice(k, shards_, params.numel()));
  std::vector<Transport::SendId> sends(static_cast<size_t>(shards_) + 1, 0);
  // Sent on their own to shard 0, the only shard that reports: the loss, and a stop signal this
  // rank received (0: none), which shard 0 turns into a stop of the whole job at one update.
  float loss_and_signal[2] = {0.0f, 0.0f};
  while (true) {
    // Patient: the server is the bottleneck, and when ranks share cores (a laptop, or
    // `--oversubscribe`) spinning workers took its CPU.
    const int tag = transport.next_tag(0, WaitPace::kPatient);
    if (tag == kStop || tag == kStateRequest) {
      receive_empty(transport, 0, tag);
      if (tag == kStop) return;
      const std::string state = w.state_bytes();
      transport.send(0, kState, state.data(), state.size());
      continue;
    }
    // Shard 0 sends the rate just before its parameters, and a sender's messages keep their order.
    const double lr = receive_value<double>(transport, 0, kRate);
    torch::Tensor received = staging.incoming(params, params_buffer);
    for (int64_t k = 0; k < shards_; ++k) {
      torch::Tensor part = received.slice(0, slices[k].lo, slices[k].hi);
      receive_floats(transport, part, static_cast<int>(k), kParams);
    }
    staging.arrived(received, params);
    auto gradient = [&](int64_t k) {
      return gradient_source_ ? gradient_source_(k)
                              : training_.compute_gradient(w.stream->batch(k));
    };
    // One minibatch's gradient at the parameters received, or H local steps from them.
    LocalRun* run = w.rule->local_run();
    const int64_t first = w.next_batch;
    const int64_t steps = steps_[static_cast<size_t>(w.index)];
    const WorkerMessage m = worker_message(*w.rule, params, lr, steps, params, model.grads(),
                                           [&](int64_t h) { return gradient(first + h); });
    w.next_batch += run ? steps : 1;
    torch::Tensor message = staging.outgoing(m.message.contiguous(), message_buffer);
    loss_and_signal[0] = m.loss.item<float>();
    fault_point("training");
    loss_and_signal[1] = static_cast<float>(pending_interrupt());
    // Every shard's slice at once: a shard waiting for its slice never waits on another shard.
    for (int64_t k = 0; k < shards_; ++k) {
      sends[static_cast<size_t>(k)] = transport.start_send(
          static_cast<int>(k), kMessage, message.data_ptr<float>() + slices[k].lo,
          static_cast<size_t>(slices[k].size()) * sizeof(float));
    }
    sends.back() = transport.start_send(0, kLoss, loss_and_signal, sizeof(loss_and_signal));
    transport.wait_sent(sends.data(), sends.size(), WaitPace::kPatient);
    if (run) run->commit();
  }
}

}  // namespace dsgd
