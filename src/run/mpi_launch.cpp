// The MPI launch; see mpi_launch.h.
//
// Every rank runs it. Rank 0 owns the run folder. Until training starts, every failure is agreed
// on by all ranks (each exits with it, none hangs); after that, a failure on one rank ends the
// whole job through MPI_Abort, once rank 0 has recorded what it knows. A stop signal (to any
// rank: mpirun forwards SIGTERM, SIGINT and SIGUSR1 to all) is the exception: the engine makes
// every rank stop after the same update, rank 0 writes one checkpoint, and every rank returns and
// exits 128 + the signal.
#include "run/mpi_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <thread>

#include "core/error_report.h"
#include "core/errors.h"
#include "engine/mpi/mpi_world.h"
#include "models/compute_format.h"
#include "run/launch.h"
#include "run/run_folder.h"
#include "train/compute_plan.h"
#include "train/training_context.h"

namespace dsgd {
namespace {

// Every rank on a host sharing its cores, as torchrun does: N ranks on C cores take C/N threads
// each, not C (which oversubscribed the README's 9-rank example 9 times over).
int64_t rank_threads(MpiWorld& world, int host_ranks, const RunConfig& config) {
  const int64_t cores = this_machine(config.cores).cores;
  const int64_t threads = std::max<int64_t>(1, cores / host_ranks);
  if (world.rank() == 0) {
    std::cerr << (config.threads > 0
                      ? fmt::format("threads: {} per rank (threads = {})\n", config.threads,
                                    config.threads)
                      : fmt::format("threads: {} per rank ({} cores shared by {} ranks on this "
                                    "host; set threads to override)\n",
                                    threads, cores, host_ranks));
  }
  return threads;
}

}  // namespace

void keep_mpi_between_jobs() { set_finalize_after_job(false); }
void finish_mpi() { finish_mpi_we_started(); }
int world_rank() {
  int initialized = 0, finalized = 0, rank = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

namespace {

// Every rank of the job runs the same steps; rank 0 owns the run folder and the log.
class MpiLaunch : public LaunchSteps {
 public:
  explicit MpiLaunch(const RunConfig& config) : root_(world_.rank() == 0) {
    RunConfig shared = config;
    shared.data_dir.clear();  // a per-host path: ranks on other hosts may keep data elsewhere
    world_.check_same(to_toml(shared), "config");
    // A collective call: made by every rank before any step that may fail on one of them.
    const MpiWorld::HostRanks host = world_.ranks_on_host();
    host_ranks_ = host.size;
    // Each rank of a host takes its own GPU while there are enough (local rank mod GPUs).
    share_ = HostShare{rank_threads(world_, host_ranks_, config), host.rank, ""};
    // One compute format for every rank: "auto" (and a resumed run's recorded bf16) takes bf16
    // only where each rank computes it natively; ranks on hosts with other CPUs would otherwise
    // each choose by their own.
    std::string bf16_slow;
    try {
      bf16_slow = bf16_slowness(choose_device(config.device, host.rank));
    } catch (const std::exception&) {
      // No GPU for device = "cuda": the session says so, on every rank that meets it. (Nothing
      // may leave a rank before the collective call below, or the others would wait for it.)
    }
    const auto [rank, reason] = world_.first_rank_saying(bf16_slow);
    if (rank >= 0) {
      share_.bf16_slow_on_another_rank =
          fmt::format("rank {} computes without it ({})", rank, reason);
    }
  }

  bool root() const override { return root_; }
  // Every rank learns whether the step failed anywhere, and throws then (the failing rank its own
  // error, the others one naming it).
  void together(const std::function<void()>& step) override { world_.agree_on(step); }
  std::unique_ptr<Session> make_session(const RunConfig& config) override {
    auto session = std::make_unique<Session>(config, share_);
    session->set_reporting(root_);
    session->set_watch_signals(false);  // the engine's agreed stop only
    const RunPlan& plan = session->plan();
    if (world_.size() != plan.ranks) {
      throw ConfigError(
          fmt::format("algo = \"{}\" with workers = {} needs {} MPI ranks ({}), "
                      "but this job has {}",
                      config.algo, config.workers, plan.ranks, plan.ranks_are, world_.size()),
          fmt::format("launch with mpirun -n {}", plan.ranks));
    }
    session->check_memory(world_.rank(), host_ranks_);
    if (config.allreduce == AllreduceAlgorithm::kRankOrder) {
      if (root_) {
        std::cerr << "all-reduce: rank-order (dsgd's reduce-scatter and all-gather, each element "
                     "summed in rank order: the simulator's means bit for bit)\n";
      }
    } else if (config.allreduce) {
      const int value = world_.set_iallreduce_algorithm(*config.allreduce);
      if (root_) {
        std::cerr << fmt::format(
            "all-reduce: {} (Open MPI's coll_libnbc_iallreduce_algorithm = {})\n",
            enum_name(config.allreduce), value);
      }
    }
    return session;
  }
  // Engines set up communicators (collective calls): only once every rank has its session.
  std::unique_ptr<Engine> build_engine(Session& session) override {
    return session.plan().build_ranks(session, world_);
  }
  std::string compute_note(const Session&) const override { return ""; }  // rank_threads's
  std::string from_root(const std::string& value) override { return world_.broadcast(value); }
  std::string folder_note() const override { return fmt::format(" ({} MPI ranks)", world_.size()); }
  void train(Session& session, Engine& engine, const std::string& path) override {
    std::exception_ptr stopped;
    try {
      session.run(engine);
    } catch (const InterruptedError&) {
      stopped = std::current_exception();
    } catch (...) {
      const ErrorReport error = report_error(std::current_exception());
      std::cerr << "dsgd: error on rank " << world_.rank() << ": " << error.message << "\n";
      if (!error.hint.empty()) std::cerr << "  hint: " << error.hint << "\n";
      if (root_ && std::filesystem::exists(checkpoint_file(path))) {
        std::cerr << "  the run folder keeps its last checkpoint: continue with `"
                  << session.launch_prefix() << "dsgd run --resume " << path << "`\n";
      }
      world_.abort(error.exit_code);
    }
    world_.follow_root(stopped);
  }

 private:
  MpiWorld world_;
  bool root_;
  int host_ranks_ = 1;
  HostShare share_;
};

}  // namespace

std::string run_on_mpi(const RunConfig& config, const std::string& out_dir, bool resume) {
  MpiLaunch steps(config);
  return launch(config, out_dir, resume, steps);
}

}  // namespace dsgd
