// The asynchronous server shards on ranks. Shard 0 takes messages in arrival order (a receive from
// any source), tells the other shards which worker's message to apply next, applies it through its
// AsyncServer and sends that worker fresh parameters; it also evaluates, checkpoints and ends the
// run. Shards 1..S-1 follow its orders on their slices. See async_ranks.h for the whole protocol.
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "core/errors.h"
#include "core/interrupt.h"
#include "engine/ranks/async_ranks_parts.h"

namespace dsgd {

using namespace async_protocol;  // NOLINT(build/namespaces): the protocol's tags and slices

// What every shard does the same way: send parameters, take a worker's message, apply it, send
// the first parameters after a start or a resume, collect what is owed at the end.
struct AsyncRanksEngine::ShardOps {
  Server& s;
  Training& training;
  World& world;
  Transport& transport = world.transport();

  WaitPace pace() const {
    return world.host_oversubscribed() ? WaitPace::kPatient : WaitPace::kSpin;
  }
  void send_params(int64_t worker, int64_t updates) {
    // The worker's row of the sent block is also its send buffer. Its previous parameters were
    // delivered before its message came back, so this wait returns at once.
    Transport::SendId& pending = s.sending[static_cast<size_t>(worker)];
    transport.wait_sent(&pending, 1);
    torch::Tensor row = s.server->send(worker, updates);
    if (s.shard == 0) {
      // 8 bytes go out eagerly: a blocking send costs nothing here and needs no buffer to keep.
      send_value(transport, s.server->lr_of(worker), s.worker_rank(worker), kRate);
    }
    // Non-blocking: the server takes the next arrival while this worker copies its parameters.
    pending = transport.start_send(s.worker_rank(worker), kParams, row.data_ptr<float>(),
                                   static_cast<size_t>(row.numel()) * sizeof(float));
    s.owes[static_cast<size_t>(worker)] = 1;
    s.owed_since[static_cast<size_t>(worker)] = std::chrono::steady_clock::now();
  }
  // Whether a worker's message is later than half the hang timeout, though others may still be
  // arriving (the watchdog then pings every rank).
  bool message_overdue() const {
    const auto now = std::chrono::steady_clock::now();
    const auto half = std::chrono::duration<double>(world.hang_timeout() / 2);
    for (size_t w = 0; w < s.owes.size(); ++w) {
      if (s.owes[w] && now - s.owed_since[w] > half) return true;
    }
    return false;
  }
  // Receives worker `worker`'s message (any worker's when negative) into s.incoming, and on
  // shard 0 its loss after it.
  int64_t receive(int64_t worker) {
    int source = worker < 0 ? Transport::kAnySource : s.worker_rank(worker);
    torch::Tensor message = s.incoming.narrow(0, 0, s.slice.size());
    int rank = receive_floats(transport, message, source, kMessage, pace(),
                              [this] { return message_overdue(); });
    if (s.shard == 0) {
      float loss_and_signal[2];
      transport.receive(rank, kLoss, loss_and_signal, sizeof(loss_and_signal));
      s.incoming.data_ptr<float>()[s.slice.size()] = loss_and_signal[0];
      s.stop_signal = stronger_interrupt(s.stop_signal, static_cast<int>(loss_and_signal[1]));
    }
    int64_t from = rank - s.shards;
    s.owes[static_cast<size_t>(from)] = 0;
    return from;
  }
  // The next message to apply, into s.incoming: one a checkpoint held comes first, else a fresh
  // arrival; from `worker`, or from any worker when negative. Returns the worker.
  int64_t take(int64_t worker) {
    const int64_t held = s.server->take_held(worker, s.incoming);
    return held >= 0 ? held : receive(worker);
  }
  // Receives a message and keeps it unapplied (a checkpoint is being taken). Returns the worker.
  int64_t hold(int64_t worker) {
    const int64_t from = receive(worker);
    s.server->hold(from, s.incoming);
    return from;
  }
  void apply(int64_t worker, int64_t updates) {
    s.server->apply(worker, s.incoming.narrow(0, 0, s.slice.size()), updates);
  }
  void start() {
    for (int64_t w = 0; w < s.workers(); ++w) {
      // Workers whose message a checkpoint held wait for the parameters its application sends.
      if (!s.restored || !s.server->holds(w)) send_params(w, training.updates_done());
    }
  }
  void finish() {
    for (int64_t w = 0; w < s.workers(); ++w) {
      if (s.owes[static_cast<size_t>(w)]) receive(w);
    }
    transport.wait_sent(s.sending.data(), s.sending.size());
  }
};

void AsyncRanksEngine::run_shard() {
  Server& s = *server_;
  Transport& transport = world_.transport();
  torch::NoGradGuard no_grad;
  ShardOps ops{s, training_, world_};
  ops.start();
  int64_t updates = training_.updates_done();
  while (true) {
    int64_t order[2];
    transport.receive(0, kOrder, order, sizeof(order), ops.pace());
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
        send_floats(transport, s.server->evaluated().contiguous(), 0, kShardReply);
        send_value(transport, s.server->telemetry().end_period()["gap_rms"], 0, kShardReply);
        break;
      }
      case kHold:
        ops.hold(worker);
        break;
      case kSnapshot: {
        TensorMap state;
        s.server->save(state, "");
        const std::string bytes = checkpoint_bytes(state);
        transport.send(0, kShardReply, bytes.data(), bytes.size());
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

void AsyncRanksEngine::run_server() {
  Server& s = *server_;
  AsyncServer& server = *s.server;
  Transport& transport = world_.transport();
  torch::NoGradGuard no_grad;
  ShardOps ops{s, training_, world_};
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double time_offset = training_.sim_time();
  // The clock stops while the server evaluates, logs and checkpoints (after_update), as the
  // simulator's and the synchronous engine's do; a worker may finish the step it is computing
  // meanwhile, at most one step per worker per evaluation.
  double paused = 0.0;
  auto elapsed = [&] {
    return time_offset + std::chrono::duration<double>(Clock::now() - start).count() - paused;
  };
  auto order = [&](OrderCode code, int64_t worker) {
    const int64_t message[2] = {code, worker};
    for (int k = 1; k < s.shards; ++k) transport.send(k, kOrder, message, sizeof(message));
  };

  // A checkpoint: collect what every busy worker owes (every shard holds the same messages),
  // every shard's and every worker's state.
  training_.set_engine_checkpoint([&](TensorMap& checkpoint) {
    int64_t owed = 0;
    for (char o : s.owes) owed += o;
    for (int64_t k = 0; k < owed; ++k) {
      order(kHold, ops.hold(-1));
    }
    order(kSnapshot, 0);
    for (int k = 1; k < s.shards; ++k) {
      checkpoint[shard_state_key(k)] = bytes_tensor(transport.receive_bytes(k, kShardReply));
    }
    for (int64_t w = 0; w < s.workers(); ++w) {
      send_empty(transport, s.worker_rank(w), kStateRequest);
      checkpoint[worker_state_key(w)] =
          bytes_tensor(transport.receive_bytes(s.worker_rank(w), kState));
    }
    server.save(checkpoint, "engine/");
  });

  // With shards, evaluation needs the whole θ: every shard's slice at the same update.
  torch::Tensor whole = s.shards > 1 ? torch::empty({s.params}) : torch::Tensor();
  std::vector<double> shard_gaps(static_cast<size_t>(s.shards), 0.0);
  auto parameters_to_evaluate = [&]() -> const torch::Tensor& {
    if (s.shards == 1) return server.evaluated();
    order(kEvaluate, 0);
    whole.slice(0, s.slice.lo, s.slice.hi).copy_(server.evaluated());
    for (int k = 1; k < s.shards; ++k) {
      Slice slice = shard_slice(k, s.shards, s.params);
      torch::Tensor part = whole.slice(0, slice.lo, slice.hi);
      receive_floats(transport, part, k, kShardReply);
      shard_gaps[static_cast<size_t>(k)] = receive_value<double>(transport, k, kShardReply);
    }
    return whole;
  };
  auto telemetry = [&]() {
    training_.report().staleness_histogram = server.telemetry().histogram();
    std::map<std::string, double> row = server.end_period();
    if (s.shards > 1) {
      // RMS over the whole vector from each shard's RMS over its slice.
      double square = row["gap_rms"] * row["gap_rms"] * static_cast<double>(s.slice.size());
      for (int k = 1; k < s.shards; ++k) {
        double gap = shard_gaps[static_cast<size_t>(k)];
        square += gap * gap * static_cast<double>(shard_slice(k, s.shards, s.params).size());
      }
      row["gap_rms"] = std::sqrt(square / static_cast<double>(s.params));
    }
    training_.report().traffic =
        exchange_traffic(server.recorded().order, steps_, training_.config().batch_size, s.params);
    row.insert(training_.report().traffic->begin(), training_.report().traffic->end());
    return row;
  };

  ops.start();
  const int64_t total = training_.total_updates();
  // A stop (a signal here, or one a worker reported) ends the loop after a checkpoint; the
  // other ranks are then released as at the end, so every rank returns and none hangs.
  std::exception_ptr interrupted;
  try {
    for (int64_t updates = training_.updates_done(); updates < total; ++updates) {
      const int64_t worker = ops.take(-1);
      const bool last = updates + 1 == total;
      order(last ? kApplyLast : kApply, worker);
      torch::Tensor loss = s.incoming[s.slice.size()].clone();
      ops.apply(worker, updates);
      if (!last) ops.send_params(worker, updates + 1);
      const torch::Tensor& evaluated =
          training_.evaluation_due(updates + 1) ? parameters_to_evaluate() : server.evaluated();
      training_.request_stop(stronger_interrupt(pending_interrupt(), s.stop_signal));
      const auto before = Clock::now();
      training_.after_update(updates + 1, loss, elapsed(), evaluated, telemetry);
      paused += std::chrono::duration<double>(Clock::now() - before).count();
    }
  } catch (const InterruptedError&) {
    interrupted = std::current_exception();
  }

  // Collect what is still owed, everywhere, then release every worker.
  order(kFinish, 0);
  ops.finish();
  for (int64_t w = 0; w < s.workers(); ++w) send_empty(transport, s.worker_rank(w), kStop);
  if (interrupted) std::rethrow_exception(interrupted);
  training_.report().staleness_histogram = server.telemetry().histogram();
  training_.report().traffic =
      exchange_traffic(server.recorded().order, steps_, training_.config().batch_size, s.params);
  if (!training_.config().timing_record_trace.empty()) {
    write_trace(training_.config().timing_record_trace, server.recorded());
  }
}

}  // namespace dsgd
