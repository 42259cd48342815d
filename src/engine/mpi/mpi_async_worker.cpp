// An asynchronous MPI worker: waits for the learning rate and its parameters (one slice from each
// server shard), computes its gradient (or takes its H local steps), turns it into its rule's
// message and sends every shard its slice; answers shard 0's requests for its state and its
// stop. See mpi_async.h.
#include <mpi.h>

#include "core/fault_injection.h"
#include "core/interrupt.h"
#include "engine/mpi/mpi_async_parts.h"
#include "engine/worker_message.h"

namespace dsgd {

using namespace mpi_transport;

std::string MpiAsyncEngine::Worker::state_bytes() {
  TensorMap state;
  for (auto& [name, tensor] : rule->state()) state["rule/" + name] = tensor;
  state["next_batch"] = torch::tensor(next_batch, torch::kLong);
  return checkpoint_bytes(state);
}

void MpiAsyncEngine::Worker::restore_state(const std::string& bytes) {
  TensorMap state = parse_checkpoint(bytes, "worker state");
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : rule->state()) {
    tensor.copy_(checkpoint_entry(state, "rule/" + name));
  }
  next_batch = checkpoint_entry(state, "next_batch").item<int64_t>();
}

void MpiAsyncEngine::run_worker() {
  Worker& w = *worker_;
  MPI_Comm comm = world_.comm();
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
  std::vector<MPI_Request> requests(static_cast<size_t>(shards_) + 1);
  // Sent on their own to shard 0, the only shard that reports: the loss, and a stop signal this
  // rank received (0: none), which shard 0 turns into a stop of the whole job at one update.
  float loss_and_signal[2] = {0.0f, 0.0f};
  while (true) {
    MPI_Status status;
    // Patient: the server is the bottleneck, and when ranks share cores (a laptop, or
    // `--oversubscribe`) spinning workers took its CPU.
    world_.watchdog().wait_until(
        [&] {
          int arrived = 0;
          check_mpi(MPI_Iprobe(0, MPI_ANY_TAG, comm, &arrived, &status), "MPI_Iprobe");
          return arrived != 0;
        },
        Watchdog::Pace::kPatient);
    if (status.MPI_TAG == kStop || status.MPI_TAG == kStateRequest) {
      check_mpi(MPI_Recv(nullptr, 0, MPI_BYTE, 0, status.MPI_TAG, comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
      if (status.MPI_TAG == kStop) return;
      send_bytes(w.state_bytes(), 0, kState, comm);
      continue;
    }
    // Shard 0 sends the rate just before its parameters, and MPI keeps a sender's order.
    double lr = 0.0;
    recv_watched(&lr, 1, MPI_DOUBLE, 0, kRate, world_);
    torch::Tensor received = staging.incoming(params, params_buffer);
    for (int64_t k = 0; k < shards_; ++k) {
      torch::Tensor part = received.slice(0, slices[k].lo, slices[k].hi);
      recv_floats(part, static_cast<int>(k), kParams, world_);
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
      check_mpi(MPI_Isend(message.data_ptr<float>() + slices[k].lo,
                          static_cast<int>(slices[k].size()), MPI_FLOAT, static_cast<int>(k),
                          kMessage, comm, &requests[static_cast<size_t>(k)]),
                "MPI_Isend");
    }
    check_mpi(MPI_Isend(loss_and_signal, 2, MPI_FLOAT, 0, kLoss, comm, &requests.back()),
              "MPI_Isend");
    world_.watchdog().wait_until(
        [&] {
          int sent = 0;
          check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &sent,
                                MPI_STATUSES_IGNORE),
                    "MPI_Testall");
          return sent != 0;
        },
        Watchdog::Pace::kPatient);
    if (run) run->commit();
  }
}

}  // namespace dsgd
