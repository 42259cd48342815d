// Setting up the ranks of the asynchronous rank engine; see async_ranks.h. The server shards'
// loops are in async_ranks_server.cpp, the workers' in async_ranks_worker.cpp.
#include "engine/ranks/async_ranks.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "engine/async_server.h"
#include "engine/ranks/async_ranks_parts.h"
#include "engine/ranks/rank_engines.h"
#include "train/local_steps.h"

namespace dsgd {

using namespace async_protocol;  // NOLINT(build/namespaces): the protocol's tags and slices

AsyncRanksEngine::AsyncRanksEngine(Training& training, World& world)
    : training_(training), world_(world) {
  const RunConfig& c = training_.config();
  shards_ = c.servers;
  if (!c.timing_trace.empty()) {
    throw ConfigError(
        "timing.trace replays an order in the simulator; a run on ranks makes its own",
        "drop timing.trace, or use engine = \"sim\"");
  }
  world_.watch(c.mpi_hang_timeout, [shards = shards_](int rank) {
    return rank < shards ? fmt::format("server shard {} (rank {})", rank, rank)
                         : fmt::format("worker {} (rank {})", rank - shards, rank);
  });
  const AsyncAlgorithm& algorithm = *training_.algorithm().async;
  check_server_shards(algorithm, shards_);
  AsyncOptions options = async_options(c);
  steps_ = local_steps_per_worker(c);
  torch::Tensor theta0 = training_.model().params().detach().clone();
  if (shards_ > theta0.numel()) {
    throw ConfigError(
        fmt::format("servers = {} exceeds the model's {} parameters", shards_, theta0.numel()),
        "use fewer servers");
  }
  int64_t server_bytes = 0;
  if (world_.rank() < shards_) {
    server_ = std::make_unique<Server>();
    Server& s = *server_;
    s.shard = world_.rank();
    s.shards = shards_;
    s.params = theta0.numel();
    s.slice = shard_slice(s.shard, shards_, s.params);
    // Every rule is element-wise, so a shard runs it on its slice as if it were the model. It runs
    // in host memory, where the transport delivers messages, whatever the device: a GPU would add
    // two copies to each message for a handful of element-wise operations (it still evaluates).
    s.server = std::make_unique<AsyncServer>(
        algorithm, options, theta0.slice(0, s.slice.lo, s.slice.hi).cpu().clone(), c.workers,
        [&training = training_](int64_t updates) { return training.lr_at(updates); }, c.gap_sample);
    s.owes.assign(static_cast<size_t>(c.workers), 0);
    s.sending.assign(static_cast<size_t>(c.workers), 0);
    s.owed_since.assign(static_cast<size_t>(c.workers), std::chrono::steady_clock::now());
    // Zeros: shards other than 0 receive no loss, and their held messages go into checkpoints.
    s.incoming = torch::zeros({s.slice.size() + 1}, torch::kFloat);
    server_bytes = s.server->rule().state_bytes();
  } else {
    worker_ = std::make_unique<Worker>();
    worker_->index = world_.rank() - shards_;
    worker_->rule = algorithm.make_worker(options, worker_->index, theta0);
    worker_->stream = std::make_unique<WorkerStream>(training_.make_stream(worker_->index));
    worker_->staging = std::make_unique<HostStaging>(training_.context().device());
  }
  server_bytes = world_.sum(server_bytes);
  if (server_) {
    training_.report().evaluated = server_->server->rule().evaluated_name();
    training_.report().server_bytes = server_bytes;
    training_.report().servers = shards_;
  }
}

AsyncRanksEngine::~AsyncRanksEngine() = default;

void AsyncRanksEngine::restore(const TensorMap& checkpoint) {
  if (worker_) {
    worker_->restore_state(
        tensor_bytes(checkpoint_entry(checkpoint, worker_state_key(worker_->index))));
    return;
  }
  Server& s = *server_;
  if (s.shard == 0) {
    s.server->restore(checkpoint, "engine/");
  } else {
    s.server->restore(
        parse_checkpoint(tensor_bytes(checkpoint_entry(checkpoint, shard_state_key(s.shard))),
                         "shard state"),
        "");
  }
  s.restored = true;
}

void AsyncRanksEngine::run() {
  if (!server_) {
    run_worker();
  } else if (server_->shard == 0) {
    run_server();
  } else {
    run_shard();
  }
}

std::unique_ptr<Engine> make_async_ranks_engine(Training& training, World& world) {
  return std::make_unique<AsyncRanksEngine>(training, world);
}

}  // namespace dsgd
