// The discrete-event simulator of N asynchronous workers and a parameter server: a priority queue
// ordered by (finish time, worker, sequence) pops the worker whose minibatch (timing model) ends
// next; its gradient at the parameters it was sent (or its H local steps from them), computed on
// a model replica, becomes its message, the server rule applies it and sends fresh parameters.
// The server's link (server_link.h) is priced like the synchronous family's global link, so
// simulated time is comparable across families.
#include <algorithm>
#include <memory>
#include <queue>

#include "algos/async_rule.h"
#include "core/errors.h"
#include "engine/async_server.h"
#include "engine/sim/gradient_pool.h"
#include "engine/sim/server_link.h"
#include "engine/sim/simulator.h"
#include "engine/sim/simulators.h"
#include "engine/sim/timing.h"
#include "engine/trace.h"
#include "engine/worker_message.h"
#include "train/local_steps.h"

namespace dsgd {

struct AsyncKind;  // the tag of this file's Simulator
using AsyncSimulator = Simulator<AsyncKind>;
namespace {

struct Event {
  double time;
  int64_t worker;
  int64_t sequence;
  // Min-heap on (time, worker, sequence): the order never depends on addresses or containers.
  bool operator>(const Event& other) const {
    if (time != other.time) return time > other.time;
    if (worker != other.worker) return worker > other.worker;
    return sequence > other.sequence;
  }
};

}  // namespace

template <>
struct AsyncSimulator::State {
  int64_t workers = 0;
  std::unique_ptr<AsyncServer> server;
  std::vector<std::unique_ptr<AsyncWorkerRule>> worker_rules;
  std::vector<WorkerStream> streams;
  std::vector<int64_t> steps;       // H_i: worker i's minibatches per exchange (local.steps)
  std::vector<int64_t> next_batch;  // k_i
  std::vector<double> finish_time;
  std::vector<int64_t> event_sequence;  // the sequence number of worker i's pending event
  std::unique_ptr<TimingModel> timing;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue;
  int64_t sequence = 0;
  std::optional<ArrivalTrace> replay;
  bool restored = false;

  std::unique_ptr<ServerLink> link;

  // With sim.replicas > 1: each worker's next gradient is computed ahead, in parallel, as soon as
  // the server sends it parameters, into its row of `gradients` (a worker that takes local steps
  // runs them ahead instead, keeping their result in its rule until the exchange).
  torch::Tensor gradients;                 // [N, P]
  std::vector<torch::Tensor> gradient_of;  // its rows
  // Last, so that it is destroyed first: it waits for running jobs, which use the members above.
  std::unique_ptr<GradientPool> pool;
};

template <>
AsyncSimulator::Simulator(Training& training)
    : training_(training), state_(std::make_unique<State>()) {
  const RunConfig& config = training_.config();
  State& s = *state_;
  s.workers = config.workers;
  const AsyncAlgorithm& algorithm = *training_.algorithm().async;
  check_server_shards(algorithm, config.servers);
  AsyncOptions options = async_options(config);
  torch::Tensor theta0 = training_.model().params().detach().clone();
  s.server = std::make_unique<AsyncServer>(
      algorithm, options, theta0, s.workers,
      [&training = training_](int64_t updates) { return training.lr_at(updates); },
      config.gap_sample);
  for (int64_t i = 0; i < s.workers; ++i) {
    s.worker_rules.push_back(algorithm.make_worker(options, i, theta0));
    s.streams.push_back(training_.make_stream(i));
  }
  s.steps = local_steps_per_worker(config);
  s.timing = std::make_unique<TimingModel>(config, s.workers);
  if (!config.timing_trace.empty()) {
    s.replay = read_trace(config.timing_trace, s.workers, training_.total_updates());
  }
  s.link = std::make_unique<ServerLink>(training_.context().clock_prices().global,
                                        theta0.numel() * theta0.element_size(), config.servers);
  // This engine holds every worker rule, so it can follow θ for the gap of a look-ahead server.
  if (s.worker_rules.front()->follows_parameters()) s.server->follow_parameters();
  const int64_t replicas = training_.context().compute_plan().replicas;
  if (replicas > 1) {
    s.pool = std::make_unique<GradientPool>(training_.context(), replicas, s.workers);
    s.gradients = torch::empty({s.workers, theta0.numel()}, theta0.options());
    for (int64_t i = 0; i < s.workers; ++i) s.gradient_of.push_back(s.gradients[i]);
  }
  s.next_batch.assign(static_cast<size_t>(s.workers), 0);
  s.finish_time.assign(static_cast<size_t>(s.workers), 0.0);
  s.event_sequence.assign(static_cast<size_t>(s.workers), 0);

  int64_t worker_bytes = 0;
  for (const auto& w : s.worker_rules) worker_bytes += w->state_bytes();
  training_.report().evaluated = s.server->rule().evaluated_name();
  training_.report().server_bytes = s.server->rule().state_bytes();
  training_.report().worker_rule_bytes = worker_bytes;

  // Taken right after an evaluation, when the period's telemetry has just been reset.
  training_.set_engine_checkpoint([&s](TensorMap& checkpoint) {
    s.server->save(checkpoint, "engine/");
    for (int64_t i = 0; i < s.workers; ++i) {
      for (auto& [name, tensor] : s.worker_rules[static_cast<size_t>(i)]->state()) {
        checkpoint["engine/worker/" + std::to_string(i) + "/" + name] = tensor;
      }
    }
    checkpoint["engine/next_batch"] = to_tensor(s.next_batch);
    checkpoint["engine/finish_time"] = to_tensor(s.finish_time);
    checkpoint["engine/event_sequence"] = to_tensor(s.event_sequence);
    checkpoint["engine/sequence"] = torch::tensor(s.sequence, torch::kLong);
    checkpoint["engine/link_free"] = s.link->state();
  });
}

template <>
void AsyncSimulator::restore(const TensorMap& checkpoint) {
  State& s = *state_;
  torch::NoGradGuard no_grad;
  auto entry = [&](const std::string& key) {
    return checkpoint_entry(checkpoint, "engine/" + key);
  };
  s.server->restore(checkpoint, "engine/");
  for (int64_t i = 0; i < s.workers; ++i) {
    for (auto& [name, tensor] : s.worker_rules[static_cast<size_t>(i)]->state()) {
      tensor.copy_(entry("worker/" + std::to_string(i) + "/" + name));
    }
  }
  s.next_batch = to_int_vector(entry("next_batch"));
  s.finish_time = to_double_vector(entry("finish_time"));
  s.event_sequence = to_int_vector(entry("event_sequence"));
  s.sequence = entry("sequence").item<int64_t>();
  s.link->restore(entry("link_free"));
  if (!s.replay) {
    for (int64_t i = 0; i < s.workers; ++i) {
      const size_t w = static_cast<size_t>(i);
      s.queue.push({s.finish_time[w], i, s.event_sequence[w]});
    }
  }
  s.restored = true;
}

template <>
AsyncSimulator::~Simulator() {}

template <>
void AsyncSimulator::run() {
  State& s = *state_;
  AsyncServer& server = *s.server;
  FlatModel& model = training_.model();
  torch::NoGradGuard no_grad;
  // Evaluations run their test pass on the replicas (queued behind the gradients computed ahead).
  const ReplicaLoan loan(training_, s.pool.get());

  // Worker i's next gradient, at the parameters it was sent, on its next batch: as a job for the
  // pool, which may start it at once (the parameters stay put until i's message is applied).
  const torch::Device device = training_.context().device();
  auto compute_ahead = [&](int64_t worker) {
    const size_t w = static_cast<size_t>(worker);
    const int64_t k = s.next_batch[w];
    // Pointers to the state, not this function's references: the workers' last jobs may still
    // run after run() returns (the pool, destroyed first with the state, waits for them).
    State* state = &s;
    const double lr = server.lr_of(worker);
    s.pool->submit(worker, [state, worker, w, k, device, lr](ModelReplica& replica) {
      FlatModel& flat = *replica.flat;
      torch::Tensor loss = compute_for_message(
          *state->worker_rules[w], state->server->sent(worker), lr, state->steps[w], flat.params(),
          flat.grads(), [&](int64_t h) {
            return replica.compute_gradient(state->streams[w].batch(k + h), device);
          });
      // A local run keeps its result in itself; a gradient is kept until its exchange.
      if (!state->worker_rules[w]->local_run()) state->gradient_of[w].copy_(flat.grads());
      return loss;
    });
  };
  // The simulated time of worker i's next H minibatches.
  auto compute_time = [&](int64_t worker) {
    const int64_t k = s.next_batch[static_cast<size_t>(worker)];
    double time = 0.0;
    const int64_t steps = s.steps[static_cast<size_t>(worker)];
    for (int64_t h = 0; h < steps; ++h) time += s.timing->duration(worker, k + h);
    return time;
  };

  // Pulls queue for the link in the order the server sends; the worker computes once its
  // parameters are in.
  auto send = [&](int64_t worker, int64_t updates, double now) {
    server.send(worker, updates);
    if (s.pool) compute_ahead(worker);
    const double finish = s.link->pull(now) + compute_time(worker);
    s.finish_time[static_cast<size_t>(worker)] = finish;
    s.event_sequence[static_cast<size_t>(worker)] = s.sequence;
    if (!s.replay) s.queue.push({finish, worker, s.sequence});
    ++s.sequence;
  };
  if (!s.restored) {
    for (int64_t i = 0; i < s.workers; ++i) send(i, 0, 0.0);
  } else if (s.pool) {
    for (int64_t i = 0; i < s.workers; ++i) compute_ahead(i);
  }

  auto traffic = [&, params = model.params().numel()] {
    return exchange_traffic(server.recorded().order, s.steps, training_.config().batch_size,
                            params);
  };
  auto telemetry = [&]() {
    // Kept current at every evaluation so that a diverged run's summary has them too.
    training_.report().staleness_histogram = server.telemetry().histogram();
    training_.report().traffic = traffic();
    std::map<std::string, double> row = server.end_period();
    row.insert(training_.report().traffic->begin(), training_.report().traffic->end());
    return row;
  };

  double now = training_.sim_time();
  for (int64_t updates = training_.updates_done(); updates < training_.total_updates(); ++updates) {
    int64_t worker;
    if (s.replay) {
      worker = s.replay->order[static_cast<size_t>(updates)];
      now = std::max(now, s.link->push(s.finish_time[static_cast<size_t>(worker)]));
    } else {
      Event event = s.queue.top();
      s.queue.pop();
      worker = event.worker;
      // Events pop in the order workers finish, so messages arrive, and are applied, in it too.
      now = s.link->push(event.time);
    }
    const size_t w = static_cast<size_t>(worker);
    const torch::Tensor& received = server.sent(worker);

    // The worker's gradient, at the parameters it was sent, turned into its message; or its H
    // local steps from them, and what the rule makes of those (computed ahead with a pool).
    AsyncWorkerRule& rule = *s.worker_rules[w];
    LocalRun* run = rule.local_run();
    const int64_t k = s.next_batch[w];
    const double lr = server.lr_of(worker);
    WorkerMessage m;
    if (s.pool) {
      m.loss = s.pool->wait(worker);
      m.message = message_of(rule, s.gradient_of[w], received, lr);
    } else {
      m = worker_message(
          rule, received, lr, s.steps[w], model.params(), model.grads(),
          [&](int64_t h) { return training_.compute_gradient(s.streams[w].batch(k + h)); });
    }
    s.next_batch[w] += s.steps[w];

    server.apply(worker, m.message, updates);
    if (run) run->commit();
    if (server.following_parameters()) rule.follow_parameters(server.actual_parameters());
    // Fresh parameters go out before after_update, so that a checkpoint it writes holds every
    // worker's pending computation.
    send(worker, updates + 1, now);
    training_.after_update(updates + 1, m.loss, now, server.evaluated(), telemetry);
  }

  training_.report().staleness_histogram = server.telemetry().histogram();
  training_.report().traffic = traffic();
  if (!training_.config().timing_record_trace.empty()) {
    write_trace(training_.config().timing_record_trace, server.recorded());
  }
}

std::unique_ptr<Engine> make_async_simulator(Training& training) {
  return std::make_unique<AsyncSimulator>(training);
}

}  // namespace dsgd
