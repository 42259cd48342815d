// The rank engines on a World of threads (engine/threads/): the transport keeps each sender's
// order and the collectives agree, and the asynchronous and synchronous rank engines, launched on
// threads through the run's own launch sequence, train exactly what the simulator trains. No MPI
// is involved: the engines need only the World and Transport interfaces.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "cli_helpers.h"
#include "core/checkpoint.h"
#include "core/errors.h"
#include "engine/threads/thread_world.h"
#include "run/launch.h"
#include "run/run_job.h"
#include "train/config.h"

namespace dsgd {
namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h

// Runs `body(world)` on a thread per rank and joins them; the first exception is rethrown.
void on_threads(std::vector<std::unique_ptr<World>>& worlds,
                const std::function<void(World&)>& body) {
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(worlds.size());
  for (size_t r = 0; r < worlds.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        body(*worlds[r]);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

TEST(ThreadWorld, TransportKeepsEachSendersOrderAndCollectivesAgree) {
  auto worlds = make_thread_worlds(3);
  worlds[0]->watch(60, {});  // every rank's waits: a bug ends the test instead of hanging it
  on_threads(worlds, [&](World& world) {
    Transport& t = world.transport();
    const int rank = world.rank();
    if (rank > 0) {
      for (int k = 0; k < 3; ++k) send_value(t, rank * 10 + k, 0, /*tag=*/5);
      send_empty(t, 0, /*tag=*/6);
    } else {
      // next_tag leaves the message; any-source receives keep each sender's own order.
      EXPECT_EQ(t.next_tag(1), 5);
      std::vector<int> from(3, -1);
      for (int k = 0; k < 6; ++k) {
        int value = 0;
        const int source = t.receive(Transport::kAnySource, 5, &value, sizeof(value));
        EXPECT_EQ(value / 10, source);
        EXPECT_EQ(value % 10, from[static_cast<size_t>(source)] + 1) << "out of order";
        from[static_cast<size_t>(source)] = value % 10;
      }
      receive_empty(t, 1, 6);
      receive_empty(t, 2, 6);
    }
    EXPECT_EQ(world.sum(rank + 1), 6);
    EXPECT_EQ(world.broadcast(rank == 2 ? "two" : "", 2), "two");
    const torch::Tensor rows = world.gather_to_root(torch::full({2}, static_cast<float>(rank)));
    if (rank == 0) {
      EXPECT_TRUE(torch::equal(rows, torch::tensor({{0.f, 0.f}, {1.f, 1.f}, {2.f, 2.f}})));
    } else {
      EXPECT_FALSE(rows.defined());
    }
    // A learner mean over pairs and over all, summed in rank order.
    auto comm = world.learner_communicator({1}, false, torch::kCPU, false);
    torch::Tensor x = torch::full({3}, static_cast<double>(rank), torch::kDouble);
    comm->average(comm->global_level(), {x});
    EXPECT_TRUE(torch::equal(x, torch::full({3}, 1.0, torch::kDouble)));
  });
}

// A rank that stopped ends the others' waits with a HangError once the timeout has passed.
TEST(ThreadWorld, ASilentRankEndsTheWaitAfterTheTimeout) {
  auto worlds = make_thread_worlds(2);
  worlds[0]->watch(0.2, [](int rank) { return "worker " + std::to_string(rank); });
  int value = 0;
  try {
    worlds[0]->transport().receive(1, 1, &value, sizeof(value));
    FAIL() << "the receive returned";
  } catch (const HangError& e) {
    EXPECT_NE(std::string(e.what()).find("worker 0 waited more than 0.2 s"), std::string::npos)
        << e.what();
  }
}

// The launch of a rank of a World of threads: the MPI launch's steps without MPI.
class ThreadLaunch : public LaunchSteps {
 public:
  explicit ThreadLaunch(World& world) : world_(world) {}
  bool root() const override { return world_.rank() == 0; }
  void together(const std::function<void()>& step) override { world_.agree_on(step); }
  std::unique_ptr<Session> make_session(const RunConfig& config) override {
    // One at a time: a model's initial parameters come from LibTorch's global generator.
    static std::mutex one_at_a_time;
    std::lock_guard<std::mutex> lock(one_at_a_time);
    auto session = std::make_unique<Session>(config, HostShare{1, 0, ""});
    session->set_reporting(root());
    session->set_watch_signals(false);
    return session;
  }
  std::unique_ptr<Engine> build_engine(Session& session) override {
    return session.plan().build_ranks(session, world_);
  }
  std::string compute_note(const Session&) const override { return ""; }
  std::string from_root(const std::string& value) override { return world_.broadcast(value); }
  std::string folder_note() const override { return " (threads)"; }
  void train(Session& session, Engine& engine, const std::string&) override {
    session.run(engine);
    world_.follow_root(nullptr);
  }

 private:
  World& world_;
};

RunConfig small_config(const std::vector<std::string>& keys) {
  std::vector<std::string> all = {"dataset=synthetic", "model=mlp",          "batch_size=16",
                                  "epochs=1",          "threads=1",          "lr=0.01",
                                  "eval_every=0.5",    "lr_schedule=cosine", "warmup_epochs=0.25",
                                  "weight_decay=1e-3", "mpi.hang_timeout=60"};
  all.insert(all.end(), keys.begin(), keys.end());
  return parse_config("", all);
}

// Trains `config` on `ranks` threads (engine = "mpi" plans it on ranks) into `out`.
void train_on_threads(RunConfig config, int ranks, const fs::path& out) {
  config.engine = EngineKind::kMpi;
  auto worlds = make_thread_worlds(ranks);
  on_threads(worlds, [&](World& world) {
    ThreadLaunch steps(world);
    launch(config, out.string(), /*resume=*/false, steps);
  });
}

torch::Tensor entry(const fs::path& run, const std::string& key) {
  return checkpoint_entry(load_checkpoint((run / "checkpoint.pt").string()), key);
}

// One server and two workers on threads, replayed by the simulator in the order the server
// recorded: the same parameters bit for bit.
TEST(ThreadWorld, AsyncRanksAreTheSimulator) {
  const fs::path ranks = fresh_dir("threads_async"), sim = fresh_dir("threads_async_sim");
  const fs::path trace = fresh_dir("threads_async_trace.csv");
  RunConfig config = small_config({"algo=dana-zero", "workers=2"});
  config.timing_record_trace = trace.string();
  train_on_threads(config, 3, ranks);
  RunConfig replay = small_config({"algo=dana-zero", "workers=2"});
  replay.timing_trace = trace.string();
  run_job(replay, sim.string());
  EXPECT_TRUE(torch::equal(entry(ranks, "engine/server/theta"), entry(sim, "engine/server/theta")));
  EXPECT_EQ(read_csv(ranks / "metrics.csv").size(), read_csv(sim / "metrics.csv").size());
  for (const auto& p : {ranks, sim, trace}) fs::remove_all(p);
}

// Hierarchical averaging on four learner threads, every mean summed in rank order: each learner
// is the simulator's bit for bit.
TEST(ThreadWorld, SyncRanksAreTheSimulator) {
  const fs::path ranks = fresh_dir("threads_sync"), sim = fresh_dir("threads_sync_sim");
  const RunConfig config = small_config({"algo=hier-avg", "workers=4", "hier.group_size=2",
                                         "hier.local_period=2", "hier.global_period=4", "lr=0.05"});
  train_on_threads(config, 4, ranks);
  run_job(config, sim.string());
  for (int i = 0; i < 4; ++i) {
    const std::string key = "engine/learner/" + std::to_string(i) + "/params";
    EXPECT_TRUE(torch::equal(entry(ranks, key), entry(sim, key))) << key;
  }
  for (const auto& p : {ranks, sim}) fs::remove_all(p);
}

}  // namespace
}  // namespace dsgd
