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
#include <filesystem>
#include <iostream>
#include <thread>

#include "core/errors.h"
#include "core/interrupt.h"
#include "engine/mpi/mpi_world.h"
#include "run/host_limits.h"
#include "run/session.h"
#include "train/local_steps.h"

namespace dsgd {
namespace {

// Runs one step of the launch on every rank and agrees on its outcome: if it failed anywhere,
// every rank throws (the failing rank its own error, the others one naming it).
template <class Step>
void agreed(MpiWorld& world, Step step) {
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  world.agree(error);
}

// Every rank on a host sharing its cores, as torchrun does: N ranks on C cores take C/N threads
// each, not C (which oversubscribed the README's 9-rank example 9 times over).
int64_t rank_threads(MpiWorld& world, int host_ranks, const RunConfig& config) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
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

std::string run_on_mpi(const RunConfig& config, const std::string& out_dir, bool resume) {
  InterruptScope interrupts;
  MpiWorld world;
  const bool root = world.rank() == 0;
  RunConfig shared = config;
  shared.data_dir.clear();  // a per-host path: ranks on other hosts may keep data elsewhere
  world.check_same(to_toml(shared), "config");

  // A collective call: made by every rank before any step that may fail on one of them.
  const MpiWorld::HostRanks host = world.ranks_on_host();
  const int host_ranks = host.size;
  // Each rank of a host takes its own GPU while there are enough (local rank mod GPUs).
  const HostShare share{rank_threads(world, host_ranks, config), host.rank};

  std::unique_ptr<Session> session;
  agreed(world, [&] {
    check_resource_keys(config, host_limits());  // each host's own, before any thread
    session = std::make_unique<Session>(config, share);
    session->set_reporting(root);
    session->set_watch_signals(false);  // the engine's agreed stop only
    const RunPlan& plan = session->plan();
    if (world.size() != plan.ranks) {
      throw ConfigError(
          fmt::format("algo = \"{}\" with workers = {} needs {} MPI ranks ({}), "
                      "but this job has {}",
                      config.algo, config.workers, plan.ranks, plan.ranks_are, world.size()),
          fmt::format("launch with mpirun -n {}", plan.ranks));
    }
    session->check_memory(world.rank(), host_ranks);
  });
  // Engines set up communicators (collective calls): only once every rank has its session.
  std::unique_ptr<Engine> engine;
  agreed(world, [&] { engine = session->plan().build_mpi(*session, world); });
  if (root) std::cerr << session->context().compute_format_note();
  if (root && session->plan().family == AlgorithmFamily::kAsync) {
    std::cerr << describe_local_steps(config);
  }

  const std::string path = world.broadcast(
      root ? (out_dir.empty() ? default_run_path(config.algo) : out_dir) : std::string());
  std::string bytes;
  agreed(world, [&] {
    if (!root) return;
    if (resume) bytes = read_checkpoint_or_previous(checkpoint_file(path));
    session->check_free_space(path);
  });
  TensorMap checkpoint;
  agreed(world, [&] {
    if (resume) {
      checkpoint = parse_checkpoint(world.broadcast(bytes), checkpoint_file(path));
      session->resume_from(path, checkpoint);
      engine->restore(checkpoint);
      if (root)
        std::cerr << "resuming " << path << " at update " << session->updates_done() << "\n";
    } else if (root) {
      session->open_folder(path);
      std::cerr << "run folder: " << path << " (" << world.size() << " MPI ranks)\n";
    }
  });

  std::exception_ptr stopped;
  try {
    session->run(*engine);
  } catch (const InterruptedError&) {
    stopped = std::current_exception();
  } catch (const Error& e) {
    std::cerr << "dsgd: error on rank " << world.rank() << ": " << e.what() << "\n";
    if (!e.hint().empty()) std::cerr << "  hint: " << e.hint() << "\n";
    if (root && std::filesystem::exists(checkpoint_file(path))) {
      std::cerr << "  the run folder keeps its last checkpoint: continue with `"
                << session->launch_prefix() << "dsgd run --resume " << path << "`\n";
    }
    world.abort(e.exit_code());
  } catch (const std::exception& e) {
    std::cerr << "dsgd: error on rank " << world.rank() << ": " << e.what() << "\n";
    world.abort(1);
  }
  world.follow_root(stopped);
  return root ? path : std::string();
}

}  // namespace dsgd
