// MPI parameter server, its shards, and the workers; see mpi_async.h.
#include "engine/mpi_async.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <thread>

#include "algos/async_rule.h"
#include "core/errors.h"
#include "engine/async_sim.h"
#include "engine/async_telemetry.h"
#include "engine/trace.h"

namespace dsgd {
namespace {

enum Tag : int {
  kParams = 11,        // shard -> worker: its slice of the parameters to compute at
  kMessage = 12,       // worker -> shard: its slice of the rule's message
  kStop = 13,          // shard 0 -> worker: training is over
  kStateRequest = 14,  // shard 0 -> worker: send your state (for a checkpoint)
  kState = 15,         // worker -> shard 0: rule state and batch counter, serialized
  kOrder = 16,         // shard 0 -> shard k: what to do next (Order)
  kShardReply = 17,    // shard k -> shard 0: its slice of θ, its gap, or its state
  kLoss = 18,          // worker -> shard 0: the loss of the batch its message came from
  kRate = 19,          // shard 0 -> worker, before kParams: the learning rate of its next message
};

// Shard 0 sequences the other shards: every shard applies the same messages in the same order.
enum OrderCode : int64_t {
  kApply = 1,      // apply worker w's message, send w fresh parameters
  kApplyLast = 2,  // apply worker w's message; training ends with it
  kEvaluate = 3,   // send shard 0 your slice of θ and your gap
  kHold = 4,       // receive worker w's message and keep it (a checkpoint is being taken)
  kSnapshot = 5,   // send shard 0 your state
  kFinish = 6,     // collect what workers still owe you, then return
};

void send_floats(const torch::Tensor& t, int dest, int tag, MPI_Comm comm) {
  check_mpi(MPI_Send(t.data_ptr<float>(), static_cast<int>(t.numel()), MPI_FLOAT, dest, tag, comm),
            "MPI_Send");
}
void send_empty(int dest, int tag, MPI_Comm comm) {
  check_mpi(MPI_Send(nullptr, 0, MPI_BYTE, dest, tag, comm), "MPI_Send");
}
// Receives into `t`; returns the sender's rank.
int recv_floats(torch::Tensor& t, int source, int tag, MPI_Comm comm) {
  MPI_Status status;
  check_mpi(MPI_Recv(t.data_ptr<float>(), static_cast<int>(t.numel()), MPI_FLOAT, source, tag, comm,
                     &status),
            "MPI_Recv");
  return status.MPI_SOURCE;
}
void send_bytes(const std::string& bytes, int dest, int tag, MPI_Comm comm) {
  check_mpi(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, comm),
            "MPI_Send");
}
std::string recv_bytes(int source, int tag, MPI_Comm comm) {
  MPI_Status status;
  check_mpi(MPI_Probe(source, tag, comm, &status), "MPI_Probe");
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::string bytes(static_cast<size_t>(count), '\0');
  check_mpi(MPI_Recv(bytes.data(), count, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE),
            "MPI_Recv");
  return bytes;
}

torch::Tensor bytes_tensor(const std::string& bytes) {
  return torch::from_blob(const_cast<char*>(bytes.data()), {static_cast<int64_t>(bytes.size())},
                          torch::kUInt8)
      .clone();
}
std::string tensor_bytes(const torch::Tensor& t) {
  torch::Tensor c = t.contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()),
                     static_cast<size_t>(c.numel()));
}

std::string worker_state_key(int64_t worker) {
  return "engine/worker/" + std::to_string(worker) + "/state";
}
std::string shard_state_key(int64_t shard) {
  return "engine/shard/" + std::to_string(shard) + "/state";
}

// A worker's wait for the server: spin for the first 100 µs (on a core of its own, a reply on its
// way arrives within that), then test every 50 µs asleep. Open MPI's own waits spin throughout,
// and when ranks share cores (a laptop, or `--oversubscribe`) the workers' spinning took the
// server's CPU: the server is the bottleneck, so waiting workers must leave it the cores.
template <typename Done>
void wait_patiently(Done done) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::microseconds(100)) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

// Shard k's part [lo, hi) of the flat vector: as even as the split allows.
struct Slice {
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t size() const { return hi - lo; }
};
Slice shard_slice(int64_t shard, int64_t shards, int64_t params) {
  return {shard * params / shards, (shard + 1) * params / shards};
}

}  // namespace

// One shard of the server (shard 0 alone when servers = 1).
struct MpiAsyncEngine::Server {
  int64_t shard = 0;
  int64_t shards = 1;
  int64_t workers = 0;
  int64_t params = 0;  // of the whole model
  Slice slice;
  std::unique_ptr<AsyncServerRule> rule;
  torch::Tensor sent;                // [N, slice]: what each worker computes at (for the gap)
  std::vector<int64_t> sent_at;      // update count when sent
  std::vector<char> owes;            // the worker is computing, or its message is in flight
  std::vector<MPI_Request> sending;  // the parameters last sent to each worker (from `sent`)
  std::deque<std::pair<int64_t, torch::Tensor>> held;  // collected by a checkpoint, not applied
  ArrivalTrace recorded;                               // shard 0
  AsyncTelemetry telemetry;
  torch::Tensor incoming;  // a message slice and (shard 0) the loss
  bool restored = false;

  int worker_rank(int64_t worker) const { return static_cast<int>(shards + worker); }

  // The state a checkpoint needs, under `prefix` (shard 0 writes into the checkpoint itself,
  // the other shards send theirs to it serialized).
  void save(TensorMap& out, const std::string& prefix) {
    for (auto& [name, tensor] : rule->state()) out[prefix + "server/" + name] = tensor;
    out[prefix + "sent"] = sent;
    out[prefix + "sent_at"] = to_tensor(sent_at);
    std::vector<int64_t> held_workers;
    std::vector<torch::Tensor> messages;
    for (auto& [worker, message] : held) {
      held_workers.push_back(worker);
      messages.push_back(message);
    }
    out[prefix + "held_workers"] = to_tensor(held_workers);
    out[prefix + "held"] =
        messages.empty() ? torch::empty({0, slice.size() + 1}) : torch::stack(messages);
  }
  void restore(const TensorMap& in, const std::string& prefix) {
    auto entry = [&](const std::string& key) { return checkpoint_entry(in, prefix + key); };
    torch::NoGradGuard no_grad;
    for (auto& [name, tensor] : rule->state()) tensor.copy_(entry("server/" + name));
    sent.copy_(entry("sent"));
    sent_at = to_int_vector(entry("sent_at"));
    std::vector<int64_t> held_workers = to_int_vector(entry("held_workers"));
    torch::Tensor messages = entry("held");
    for (size_t k = 0; k < held_workers.size(); ++k) {
      held.emplace_back(held_workers[k], messages[static_cast<int64_t>(k)].clone());
    }
    restored = true;
  }
};

struct MpiAsyncEngine::Worker {
  int64_t index = 0;
  std::unique_ptr<AsyncWorkerRule> rule;
  std::unique_ptr<WorkerStream> stream;
  int64_t next_batch = 0;

  std::string state_bytes() {
    TensorMap state;
    for (auto& [name, tensor] : rule->state()) state["rule/" + name] = tensor;
    state["next_batch"] = torch::tensor(next_batch, torch::kLong);
    return checkpoint_bytes(state);
  }
  void restore_state(const std::string& bytes) {
    TensorMap state = parse_checkpoint(bytes, "worker state");
    torch::NoGradGuard no_grad;
    for (auto& [name, tensor] : rule->state()) {
      tensor.copy_(checkpoint_entry(state, "rule/" + name));
    }
    next_batch = checkpoint_entry(state, "next_batch").item<int64_t>();
  }
};

MpiAsyncEngine::MpiAsyncEngine(Session& session, MpiWorld& world)
    : session_(session), world_(world) {
  const RunConfig& c = session_.config();
  shards_ = c.servers;
  if (world_.size() != c.workers + shards_) {
    throw ConfigError(
        fmt::format("algo = \"{}\" with workers = {} and servers = {} needs {} MPI ranks, but "
                    "this job has {}",
                    c.algo, c.workers, shards_, c.workers + shards_, world_.size()),
        fmt::format("launch with mpirun -n {}", c.workers + shards_));
  }
  if (!c.timing_trace.empty()) {
    throw ConfigError("timing.trace replays an order in the simulator; an MPI run makes its own",
                      "drop timing.trace, or use engine = \"sim\"");
  }
  const AsyncAlgorithm& algorithm = find_async_algorithm(c.algo);
  AsyncOptions options = async_options(c);
  torch::Tensor theta0 = session_.model().params().detach().clone();
  if (shards_ > theta0.numel()) {
    throw ConfigError(
        fmt::format("servers = {} exceeds the model's {} parameters", shards_, theta0.numel()),
        "use fewer servers");
  }
  if (world_.rank() < shards_) {
    server_ = std::make_unique<Server>();
    Server& s = *server_;
    s.shard = world_.rank();
    s.shards = shards_;
    s.workers = c.workers;
    s.params = theta0.numel();
    s.slice = shard_slice(s.shard, shards_, s.params);
    // Every rule is element-wise, so a shard runs it on its slice as if it were the model.
    s.rule =
        algorithm.make_server(options, theta0.slice(0, s.slice.lo, s.slice.hi).clone(), s.workers);
    s.sent = torch::empty({s.workers, s.slice.size()}, theta0.options());
    s.sent_at.assign(static_cast<size_t>(s.workers), 0);
    s.owes.assign(static_cast<size_t>(s.workers), 0);
    s.sending.assign(static_cast<size_t>(s.workers), MPI_REQUEST_NULL);
    // Zeros: shards other than 0 receive no loss, and their held messages go into checkpoints.
    s.incoming = torch::zeros({s.slice.size() + 1}, theta0.options());
    s.telemetry = AsyncTelemetry(c.gap_sample);
    s.recorded.workers = s.workers;
    int64_t bytes = s.rule->state_bytes();
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_SUM, world_.comm()),
              "MPI_Allreduce");
    session_.summary_extra()["server_bytes"] = bytes;
    session_.summary_extra()["servers"] = shards_;
  } else {
    int64_t zero = 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &zero, 1, MPI_INT64_T, MPI_SUM, world_.comm()),
              "MPI_Allreduce");
    worker_ = std::make_unique<Worker>();
    worker_->index = world_.rank() - shards_;
    worker_->rule = algorithm.make_worker(options, worker_->index, theta0);
    worker_->stream = std::make_unique<WorkerStream>(session_.make_stream(worker_->index));
  }
}

MpiAsyncEngine::~MpiAsyncEngine() = default;

void MpiAsyncEngine::restore(const TensorMap& checkpoint) {
  if (worker_) {
    worker_->restore_state(
        tensor_bytes(checkpoint_entry(checkpoint, worker_state_key(worker_->index))));
    return;
  }
  Server& s = *server_;
  if (s.shard == 0) {
    s.restore(checkpoint, "engine/");
    s.recorded.order = to_int_vector(checkpoint_entry(checkpoint, "engine/recorded_order"));
    s.telemetry.restore(checkpoint);
  } else {
    s.restore(parse_checkpoint(tensor_bytes(checkpoint_entry(checkpoint, shard_state_key(s.shard))),
                               "shard state"),
              "");
  }
}

void MpiAsyncEngine::run() {
  if (!server_) {
    run_worker();
  } else if (server_->shard == 0) {
    run_server();
  } else {
    run_shard();
  }
}

void MpiAsyncEngine::run_worker() {
  Worker& w = *worker_;
  MPI_Comm comm = world_.comm();
  FlatModel& model = session_.model();
  torch::NoGradGuard no_grad;
  // Parameters arrive straight in the model and the message leaves from the rule's own buffer:
  // no copy on either side, which at 11M parameters is most of a worker's message cost.
  torch::Tensor params = model.params();
  std::vector<Slice> slices;
  for (int64_t k = 0; k < shards_; ++k) slices.push_back(shard_slice(k, shards_, params.numel()));
  std::vector<MPI_Request> requests(static_cast<size_t>(shards_) + 1);
  float loss_value = 0.0f;  // sent on its own to shard 0, the only shard that reports it
  while (true) {
    MPI_Status status;
    wait_patiently([&] {
      int arrived = 0;
      check_mpi(MPI_Iprobe(0, MPI_ANY_TAG, comm, &arrived, &status), "MPI_Iprobe");
      return arrived != 0;
    });
    if (status.MPI_TAG == kStop || status.MPI_TAG == kStateRequest) {
      check_mpi(MPI_Recv(nullptr, 0, MPI_BYTE, 0, status.MPI_TAG, comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
      if (status.MPI_TAG == kStop) return;
      send_bytes(w.state_bytes(), 0, kState, comm);
      continue;
    }
    // Shard 0 sends the rate just before its parameters, and MPI keeps a sender's order.
    double lr = 0.0;
    check_mpi(MPI_Recv(&lr, 1, MPI_DOUBLE, 0, kRate, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    for (int64_t k = 0; k < shards_; ++k) {
      torch::Tensor part = params.slice(0, slices[k].lo, slices[k].hi);
      recv_floats(part, static_cast<int>(k), kParams, comm);
    }
    torch::Tensor loss = [&] {
      if (gradient_source_) return gradient_source_(w.next_batch++);
      torch::AutoGradMode enable_grad(true);
      return session_.compute_gradient(w.stream->batch(w.next_batch++));
    }();
    torch::Tensor message = w.rule->message(model.grads(), params, lr).contiguous();
    loss_value = loss.item<float>();
    // Every shard's slice at once: a shard waiting for its slice never waits on another shard.
    for (int64_t k = 0; k < shards_; ++k) {
      check_mpi(MPI_Isend(message.data_ptr<float>() + slices[k].lo,
                          static_cast<int>(slices[k].size()), MPI_FLOAT, static_cast<int>(k),
                          kMessage, comm, &requests[static_cast<size_t>(k)]),
                "MPI_Isend");
    }
    check_mpi(MPI_Isend(&loss_value, 1, MPI_FLOAT, 0, kLoss, comm, &requests.back()), "MPI_Isend");
    wait_patiently([&] {
      int sent = 0;
      check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &sent,
                            MPI_STATUSES_IGNORE),
                "MPI_Testall");
      return sent != 0;
    });
  }
}

// What every shard does the same way: send parameters, take a worker's message, apply it, send
// the first parameters after a start or a resume, collect what is owed at the end.
struct MpiAsyncEngine::ShardOps {
  Server& s;
  Session& session;
  MPI_Comm comm;

  void send_params(int64_t worker, int64_t updates) {
    // The worker's row of `sent` is also its send buffer. Its previous parameters were delivered
    // before its message came back, so this wait returns at once.
    MPI_Request& pending = s.sending[static_cast<size_t>(worker)];
    check_mpi(MPI_Wait(&pending, MPI_STATUS_IGNORE), "MPI_Wait");
    torch::Tensor row = s.sent[worker];
    s.rule->parameters_for(worker, row);
    s.sent_at[static_cast<size_t>(worker)] = updates;
    if (s.shard == 0) {
      // 8 bytes go out eagerly: a blocking send costs nothing here and needs no buffer to keep.
      double lr = session.lr_at(updates);
      check_mpi(MPI_Send(&lr, 1, MPI_DOUBLE, s.worker_rank(worker), kRate, comm), "MPI_Send");
    }
    // Non-blocking: the server takes the next arrival while this worker copies its parameters.
    check_mpi(MPI_Isend(row.data_ptr<float>(), static_cast<int>(row.numel()), MPI_FLOAT,
                        s.worker_rank(worker), kParams, comm, &pending),
              "MPI_Isend");
    s.owes[static_cast<size_t>(worker)] = 1;
  }
  // Receives worker `worker`'s message (any worker's when negative) into s.incoming, and on
  // shard 0 its loss after it.
  int64_t receive(int64_t worker) {
    int source = worker < 0 ? MPI_ANY_SOURCE : s.worker_rank(worker);
    torch::Tensor message = s.incoming.narrow(0, 0, s.slice.size());
    int rank = recv_floats(message, source, kMessage, comm);
    if (s.shard == 0) {
      check_mpi(MPI_Recv(s.incoming.data_ptr<float>() + s.slice.size(), 1, MPI_FLOAT, rank, kLoss,
                         comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
    }
    int64_t from = rank - s.shards;
    s.owes[static_cast<size_t>(from)] = 0;
    return from;
  }
  // The next message to apply, into s.incoming: one a checkpoint held comes first, else a fresh
  // arrival; from `worker`, or from any worker when negative. Returns the worker.
  int64_t take(int64_t worker) {
    if (!s.held.empty() && (worker < 0 || s.held.front().first == worker)) {
      const int64_t from = s.held.front().first;
      s.incoming.copy_(s.held.front().second);
      s.held.pop_front();
      return from;
    }
    return receive(worker);
  }
  // Receives a message and keeps it unapplied (a checkpoint is being taken). Returns the worker.
  int64_t hold(int64_t worker) {
    const int64_t from = receive(worker);
    s.held.emplace_back(from, s.incoming.clone());
    return from;
  }
  void apply(int64_t worker, int64_t updates) {
    torch::Tensor message = s.incoming.narrow(0, 0, s.slice.size());
    s.telemetry.record(updates - s.sent_at[static_cast<size_t>(worker)], s.rule->center(),
                       s.sent[worker]);
    // η of a message: the rate when its worker was sent parameters (algos/async_rule.h).
    s.rule->apply(worker, message, session.lr_at(s.sent_at[static_cast<size_t>(worker)]));
  }
  void start() {
    std::vector<char> held(static_cast<size_t>(s.workers), 0);
    for (auto& entry : s.held) held[static_cast<size_t>(entry.first)] = 1;
    for (int64_t w = 0; w < s.workers; ++w) {
      // Workers whose message a checkpoint held wait for the parameters its application sends.
      if (!s.restored || !held[static_cast<size_t>(w)]) send_params(w, session.updates_done());
    }
  }
  void finish() {
    for (int64_t w = 0; w < s.workers; ++w) {
      if (s.owes[static_cast<size_t>(w)]) receive(w);
    }
    check_mpi(
        MPI_Waitall(static_cast<int>(s.sending.size()), s.sending.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  }
};

void MpiAsyncEngine::run_shard() {
  Server& s = *server_;
  MPI_Comm comm = world_.comm();
  torch::NoGradGuard no_grad;
  ShardOps ops{s, session_, comm};
  ops.start();
  int64_t updates = session_.updates_done();
  while (true) {
    int64_t order[2];
    check_mpi(MPI_Recv(order, 2, MPI_INT64_T, 0, kOrder, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    const int64_t worker = order[1];
    switch (order[0]) {
      case kApply:
      case kApplyLast:
        ops.take(worker);
        ops.apply(worker, updates);
        ++updates;
        if (order[0] == kApply) ops.send_params(worker, updates);
        break;
      case kEvaluate: {
        send_floats(s.rule->center().contiguous(), 0, kShardReply, comm);
        double gap = s.telemetry.end_period()["gap_rms"];
        check_mpi(MPI_Send(&gap, 1, MPI_DOUBLE, 0, kShardReply, comm), "MPI_Send");
        break;
      }
      case kHold:
        ops.hold(worker);
        break;
      case kSnapshot: {
        TensorMap state;
        s.save(state, "");
        send_bytes(checkpoint_bytes(state), 0, kShardReply, comm);
        break;
      }
      case kFinish:
        ops.finish();
        return;
      default:
        throw Error(fmt::format("shard {} got unknown order {}", s.shard, order[0]),
                    "this is a dsgd bug; report it");
    }
  }
}

void MpiAsyncEngine::run_server() {
  Server& s = *server_;
  MPI_Comm comm = world_.comm();
  torch::NoGradGuard no_grad;
  ShardOps ops{s, session_, comm};
  const auto start = std::chrono::steady_clock::now();
  const double time_offset = session_.sim_time();
  auto elapsed = [&] {
    return time_offset +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto order = [&](OrderCode code, int64_t worker) {
    int64_t message[2] = {code, worker};
    for (int k = 1; k < s.shards; ++k) {
      check_mpi(MPI_Send(message, 2, MPI_INT64_T, k, kOrder, comm), "MPI_Send");
    }
  };

  // A checkpoint: collect what every busy worker owes (every shard holds the same messages),
  // every shard's and every worker's state.
  session_.set_engine_checkpoint([&](TensorMap& checkpoint) {
    int64_t owed = 0;
    for (char o : s.owes) owed += o;
    for (int64_t k = 0; k < owed; ++k) {
      order(kHold, ops.hold(-1));
    }
    order(kSnapshot, 0);
    for (int k = 1; k < s.shards; ++k) {
      checkpoint[shard_state_key(k)] = bytes_tensor(recv_bytes(k, kShardReply, comm));
    }
    for (int64_t w = 0; w < s.workers; ++w) {
      send_empty(s.worker_rank(w), kStateRequest, comm);
      checkpoint[worker_state_key(w)] = bytes_tensor(recv_bytes(s.worker_rank(w), kState, comm));
    }
    s.save(checkpoint, "engine/");
    checkpoint["engine/recorded_order"] = to_tensor(s.recorded.order);
    s.telemetry.save(checkpoint);
  });

  // With shards, evaluation needs the whole θ: every shard's slice at the same update.
  torch::Tensor whole = s.shards > 1 ? torch::empty({s.params}) : torch::Tensor();
  std::vector<double> shard_gaps(static_cast<size_t>(s.shards), 0.0);
  auto parameters_to_evaluate = [&]() -> const torch::Tensor& {
    if (s.shards == 1) return s.rule->center();
    order(kEvaluate, 0);
    whole.slice(0, s.slice.lo, s.slice.hi).copy_(s.rule->center());
    for (int k = 1; k < s.shards; ++k) {
      Slice slice = shard_slice(k, s.shards, s.params);
      torch::Tensor part = whole.slice(0, slice.lo, slice.hi);
      recv_floats(part, k, kShardReply, comm);
      check_mpi(MPI_Recv(&shard_gaps[static_cast<size_t>(k)], 1, MPI_DOUBLE, k, kShardReply, comm,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
    }
    return whole;
  };
  auto telemetry = [&]() {
    session_.summary_extra()["staleness_histogram"] = s.telemetry.histogram();
    std::map<std::string, double> row = s.telemetry.end_period();
    if (s.shards > 1) {
      // RMS over the whole vector from each shard's RMS over its slice.
      double square = row["gap_rms"] * row["gap_rms"] * static_cast<double>(s.slice.size());
      for (int k = 1; k < s.shards; ++k) {
        double gap = shard_gaps[static_cast<size_t>(k)];
        square += gap * gap * static_cast<double>(shard_slice(k, s.shards, s.params).size());
      }
      row["gap_rms"] = std::sqrt(square / static_cast<double>(s.params));
    }
    return row;
  };

  ops.start();
  const int64_t total = session_.total_updates();
  for (int64_t updates = session_.updates_done(); updates < total; ++updates) {
    const int64_t worker = ops.take(-1);
    const bool last = updates + 1 == total;
    order(last ? kApplyLast : kApply, worker);
    torch::Tensor loss = s.incoming[s.slice.size()].clone();
    ops.apply(worker, updates);
    s.recorded.order.push_back(worker);
    if (!last) ops.send_params(worker, updates + 1);
    const torch::Tensor& evaluated =
        session_.evaluation_due(updates + 1) ? parameters_to_evaluate() : s.rule->center();
    session_.after_update(updates + 1, loss, elapsed(), evaluated, telemetry);
  }

  // Collect what is still owed, everywhere, then release every worker.
  order(kFinish, 0);
  ops.finish();
  for (int64_t w = 0; w < s.workers; ++w) send_empty(s.worker_rank(w), kStop, comm);
  session_.summary_extra()["staleness_histogram"] = s.telemetry.histogram();
  if (!session_.config().timing_record_trace.empty()) {
    write_trace(session_.config().timing_record_trace, s.recorded);
  }
}

}  // namespace dsgd
