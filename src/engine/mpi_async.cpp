// MPI parameter server and workers; see mpi_async.h.
#include "engine/mpi_async.h"

#include <fmt/format.h>

#include <chrono>
#include <deque>

#include "algos/async_rule.h"
#include "core/errors.h"
#include "engine/async_sim.h"
#include "engine/async_telemetry.h"
#include "engine/trace.h"

namespace dsgd {
namespace {

enum Tag : int {
  kParams = 11,        // server -> worker: parameters to compute at
  kMessage = 12,       // worker -> server: the rule's message, then the loss (P + 1 floats)
  kStop = 13,          // server -> worker: training is over
  kStateRequest = 14,  // server -> worker: send your state (for a checkpoint)
  kState = 15,         // worker -> server: rule state and batch counter, serialized
};

int worker_rank(int64_t worker) { return static_cast<int>(worker + 1); }

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

}  // namespace

struct MpiAsyncEngine::Server {
  int64_t workers = 0;
  int64_t params = 0;
  std::unique_ptr<AsyncServerRule> rule;
  torch::Tensor sent;            // [N, P]: what each worker computes at (for the gap)
  std::vector<int64_t> sent_at;  // server update count when sent
  std::vector<char> owes;        // the worker is computing, or its message is in flight
  std::deque<std::pair<int64_t, torch::Tensor>> held;  // collected by a checkpoint, not applied
  ArrivalTrace recorded;
  AsyncTelemetry telemetry;
  bool restored = false;
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
  if (world_.size() != c.workers + 1) {
    throw ConfigError(fmt::format("algo = \"{}\" with workers = {} needs {} MPI ranks (a server "
                                  "and {} workers), but this job has {}",
                                  c.algo, c.workers, c.workers + 1, c.workers, world_.size()),
                      fmt::format("launch with mpirun -n {}", c.workers + 1));
  }
  if (!c.timing_trace.empty()) {
    throw ConfigError("timing.trace replays an order in the simulator; an MPI run makes its own",
                      "drop timing.trace, or use engine = \"sim\"");
  }
  const AsyncAlgorithm& algorithm = find_async_algorithm(c.algo);
  AsyncOptions options = async_options(c);
  torch::Tensor theta0 = session_.model().params().detach().clone();
  if (world_.rank() == 0) {
    server_ = std::make_unique<Server>();
    Server& s = *server_;
    s.workers = c.workers;
    s.params = theta0.numel();
    s.rule = algorithm.make_server(options, theta0, s.workers);
    s.sent = torch::empty({s.workers, s.params}, theta0.options());
    s.sent_at.assign(static_cast<size_t>(s.workers), 0);
    s.owes.assign(static_cast<size_t>(s.workers), 0);
    s.recorded.workers = s.workers;
    session_.summary_extra()["server_bytes"] = s.rule->state_bytes();
  } else {
    worker_ = std::make_unique<Worker>();
    worker_->index = world_.rank() - 1;
    worker_->rule = algorithm.make_worker(options, worker_->index, theta0);
    worker_->stream = std::make_unique<WorkerStream>(session_.make_stream(worker_->index));
  }
}

MpiAsyncEngine::~MpiAsyncEngine() = default;

void MpiAsyncEngine::restore(const TensorMap& checkpoint) {
  auto entry = [&](const std::string& key) {
    return checkpoint_entry(checkpoint, "engine/" + key);
  };
  if (worker_) {
    worker_->restore_state(
        tensor_bytes(checkpoint_entry(checkpoint, worker_state_key(worker_->index))));
    return;
  }
  Server& s = *server_;
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : s.rule->state()) tensor.copy_(entry("server/" + name));
  s.sent.copy_(entry("sent"));
  s.sent_at = to_int_vector(entry("sent_at"));
  std::vector<int64_t> held_workers = to_int_vector(entry("held_workers"));
  torch::Tensor held = entry("held");
  for (size_t k = 0; k < held_workers.size(); ++k) {
    s.held.emplace_back(held_workers[k], held[static_cast<int64_t>(k)].clone());
  }
  s.recorded.order = to_int_vector(entry("recorded_order"));
  s.telemetry.restore(checkpoint);
  s.restored = true;
}

void MpiAsyncEngine::run() {
  if (server_) {
    run_server();
  } else {
    run_worker();
  }
}

void MpiAsyncEngine::run_worker() {
  Worker& w = *worker_;
  MPI_Comm comm = world_.comm();
  FlatModel& model = session_.model();
  torch::NoGradGuard no_grad;
  torch::Tensor received = torch::empty_like(model.params());
  torch::Tensor outgoing = torch::empty({model.num_params() + 1}, model.params().options());
  while (true) {
    MPI_Status status;
    check_mpi(MPI_Probe(0, MPI_ANY_TAG, comm, &status), "MPI_Probe");
    if (status.MPI_TAG == kStop || status.MPI_TAG == kStateRequest) {
      check_mpi(MPI_Recv(nullptr, 0, MPI_BYTE, 0, status.MPI_TAG, comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
      if (status.MPI_TAG == kStop) return;
      std::string bytes = w.state_bytes();
      check_mpi(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kState, comm),
                "MPI_Send");
      continue;
    }
    recv_floats(received, 0, kParams, comm);
    model.params().copy_(received);
    torch::Tensor loss = [&] {
      if (gradient_source_) return gradient_source_(w.next_batch++);
      torch::AutoGradMode enable_grad(true);
      return session_.compute_gradient(w.stream->batch(w.next_batch++));
    }();
    torch::Tensor message = w.rule->message(model.grads(), received);
    outgoing.narrow(0, 0, model.num_params()).copy_(message);
    outgoing[model.num_params()] = loss.to(torch::kFloat);
    send_floats(outgoing, 0, kMessage, comm);
  }
}

void MpiAsyncEngine::run_server() {
  Server& s = *server_;
  MPI_Comm comm = world_.comm();
  torch::NoGradGuard no_grad;
  const auto start = std::chrono::steady_clock::now();
  const double time_offset = session_.sim_time();
  auto elapsed = [&] {
    return time_offset +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto send_params = [&](int64_t worker, int64_t updates) {
    torch::Tensor row = s.sent[worker];
    s.rule->parameters_for(worker, session_.lr_at(updates), row);
    s.sent_at[static_cast<size_t>(worker)] = updates;
    send_floats(row, worker_rank(worker), kParams, comm);
    s.owes[static_cast<size_t>(worker)] = 1;
  };
  torch::Tensor incoming = torch::empty({s.params + 1}, s.sent.options());
  auto receive_any = [&]() -> int64_t {
    int64_t worker = recv_floats(incoming, MPI_ANY_SOURCE, kMessage, comm) - 1;
    s.owes[static_cast<size_t>(worker)] = 0;
    return worker;
  };

  // A checkpoint: collect what every busy worker owes and every worker's state.
  session_.set_engine_checkpoint([&](TensorMap& checkpoint) {
    int64_t owed = 0;
    for (char o : s.owes) owed += o;
    for (int64_t k = 0; k < owed; ++k) {
      int64_t worker = receive_any();
      s.held.emplace_back(worker, incoming.clone());
    }
    for (int64_t w = 0; w < s.workers; ++w) {
      send_empty(worker_rank(w), kStateRequest, comm);
      checkpoint[worker_state_key(w)] = bytes_tensor(recv_bytes(worker_rank(w), kState, comm));
    }
    for (auto& [name, tensor] : s.rule->state()) checkpoint["engine/server/" + name] = tensor;
    checkpoint["engine/sent"] = s.sent;
    checkpoint["engine/sent_at"] = to_tensor(s.sent_at);
    std::vector<int64_t> held_workers;
    std::vector<torch::Tensor> held;
    for (auto& [worker, message] : s.held) {
      held_workers.push_back(worker);
      held.push_back(message);
    }
    checkpoint["engine/held_workers"] = to_tensor(held_workers);
    checkpoint["engine/held"] = held.empty() ? torch::empty({0, s.params + 1}) : torch::stack(held);
    checkpoint["engine/recorded_order"] = to_tensor(s.recorded.order);
    s.telemetry.save(checkpoint);
  });

  if (!s.restored) {
    for (int64_t w = 0; w < s.workers; ++w) send_params(w, 0);
  } else {
    // Workers whose message a checkpoint held wait for the parameters its application sends.
    std::vector<char> held(static_cast<size_t>(s.workers), 0);
    for (auto& entry : s.held) held[static_cast<size_t>(entry.first)] = 1;
    for (int64_t w = 0; w < s.workers; ++w) {
      if (!held[static_cast<size_t>(w)]) send_params(w, session_.updates_done());
    }
  }
  auto telemetry = [&]() {
    session_.summary_extra()["staleness_histogram"] = s.telemetry.histogram();
    return s.telemetry.end_period();
  };

  const int64_t total = session_.total_updates();
  for (int64_t updates = session_.updates_done(); updates < total; ++updates) {
    int64_t worker;
    if (!s.held.empty()) {
      worker = s.held.front().first;
      incoming.copy_(s.held.front().second);
      s.held.pop_front();
    } else {
      worker = receive_any();
    }
    torch::Tensor message = incoming.narrow(0, 0, s.params);
    torch::Tensor loss = incoming[s.params].clone();
    s.telemetry.record(updates - s.sent_at[static_cast<size_t>(worker)], s.rule->center(),
                       s.sent[worker]);
    s.rule->apply(worker, message, session_.lr_at(updates));
    s.recorded.order.push_back(worker);
    if (updates + 1 < total) send_params(worker, updates + 1);
    session_.after_update(updates + 1, loss, elapsed(), s.rule->center(), telemetry);
  }

  // Collect what is still owed, then release every worker.
  for (int64_t w = 0; w < s.workers; ++w) {
    if (s.owes[static_cast<size_t>(w)]) recv_floats(incoming, worker_rank(w), kMessage, comm);
    send_empty(worker_rank(w), kStop, comm);
  }
  session_.summary_extra()["staleness_histogram"] = s.telemetry.histogram();
  if (!session_.config().timing_record_trace.empty()) {
    write_trace(session_.config().timing_record_trace, s.recorded);
  }
}

}  // namespace dsgd
