// Job dispatch; see run_job.h.
#include "run/run_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

#include "algos/catalog.h"
#include "core/errors.h"
#include "core/interrupt.h"
#include "engine/async_sim.h"
#include "engine/mpi_async.h"
#include "engine/mpi_sync.h"
#include "engine/mpi_world.h"
#include "engine/single_worker.h"
#include "engine/sync_sim.h"
#include "run/session.h"

namespace dsgd {
namespace {

constexpr const char* kCheckpointFile = "/checkpoint.pt";

// The simulator engine for the algorithm's family. Engines validate their own inputs (trace
// files, group shapes) here, before the run folder exists.
std::unique_ptr<Engine> make_simulator(Session& session, AlgorithmFamily family) {
  switch (family) {
    case AlgorithmFamily::kAsync:
      return std::make_unique<AsyncSimulator>(session);
    case AlgorithmFamily::kSync:
      return std::make_unique<SyncSimulator>(session);
    case AlgorithmFamily::kSingle:
      break;
  }
  return std::make_unique<SingleWorker>(session);
}

// Runs the engine; on failure records it in summary.json (where this process owns the folder)
// and rethrows.
void run_recorded(Session& session, Engine& engine) {
  try {
    engine.run();
  } catch (const CollapsedError& e) {
    session.write_summary("collapsed", e.what());
    throw;
  } catch (const InterruptedError& e) {
    session.write_summary("interrupted", e.what());
    throw;
  } catch (const HangError& e) {
    session.write_summary("hung", e.what());
    throw;
  } catch (const DivergedError& e) {
    session.write_summary("diverged", e.what());
    throw;
  } catch (const std::exception& e) {
    session.write_summary("failed", e.what());
    throw;
  }
  session.write_summary("ok");
}

std::string run_simulated(const RunConfig& config, const std::string& out_dir, bool resume) {
  // One process holds the whole run: it stops at the next update after a signal.
  catch_interrupts();
  Session session(config);
  std::unique_ptr<Engine> engine = make_simulator(session, find_algorithm(config.algo).family);
  const ComputePlan& plan = session.context().compute_plan();
  std::cerr << fmt::format(
      "threads: {}{} ({}; set threads and sim.replicas to override)\n", plan.threads,
      plan.replicas > 1 ? fmt::format(" on each of {} replicas", plan.replicas) : "", plan.reason);
  std::string path = out_dir.empty() ? default_run_path(config.algo) : out_dir;
  TensorMap checkpoint;  // outlives the run: engines may read it while running
  if (resume) {
    checkpoint = session.resume_folder(path);
    session.check_free_space(path);
    engine->restore(checkpoint);
    std::cerr << "resuming " << path << " at update " << session.updates_done() << "\n";
  } else {
    session.check_free_space(path);
    session.open_folder(path);
    std::cerr << "run folder: " << path << "\n";
  }
  run_recorded(session, *engine);
  return path;
}

// Every rank runs this. Rank 0 owns the run folder. Until training starts, every failure is
// agreed on by all ranks (each exits with it, none hangs); after that, a failure on one rank
// ends the whole job through MPI_Abort, once rank 0 has recorded what it knows. A stop signal
// (to any rank: mpirun forwards SIGTERM, SIGINT and SIGUSR1 to all) is the exception: the engine
// makes every rank stop after the same update, rank 0 writes one checkpoint, and every rank
// returns and exits 128 + the signal.
std::string run_on_mpi(const RunConfig& config, const std::string& out_dir, bool resume) {
  catch_interrupts();
  MpiWorld world;
  const bool root = world.rank() == 0;
  const AlgorithmFamily family = find_algorithm(config.algo).family;
  RunConfig shared = config;
  shared.data_dir.clear();  // a per-host path: ranks on other hosts may keep data elsewhere
  world.check_same(to_toml(shared), "config");

  // Every rank on a host sharing its cores, as torchrun does: N ranks on C cores take C/N
  // threads each, not C (which oversubscribed the README's 9-rank example 9 times over).
  const int host_ranks = world.ranks_on_host();
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  const int64_t rank_threads = std::max<int64_t>(1, cores / host_ranks);
  if (root) {
    std::cerr << (config.threads > 0
                      ? fmt::format("threads: {} per rank (threads = {})\n", config.threads,
                                    config.threads)
                      : fmt::format("threads: {} per rank ({} cores shared by {} ranks on this "
                                    "host; set threads to override)\n",
                                    rank_threads, cores, host_ranks));
  }

  std::unique_ptr<Session> session;
  std::unique_ptr<Engine> engine;
  std::exception_ptr error;
  try {
    session = std::make_unique<Session>(config, rank_threads);
    session->set_reporting(root);
    session->set_watch_signals(false);  // the engine's agreed stop only
  } catch (...) {
    error = std::current_exception();
  }
  world.agree(error);
  // Engines set up communicators (collective calls): only once every rank has its session.
  try {
    if (family == AlgorithmFamily::kAsync) {
      engine = std::make_unique<MpiAsyncEngine>(*session, world);
    } else if (family == AlgorithmFamily::kSync) {
      engine = std::make_unique<MpiSyncEngine>(*session, world);
    } else {
      throw ConfigError("algo = \"sgd\" trains one worker; it has no MPI engine",
                        "use engine = \"sim\", or a distributed algorithm");
    }
  } catch (...) {
    error = std::current_exception();
  }
  world.agree(error);

  std::string path = world.broadcast(
      root ? (out_dir.empty() ? default_run_path(config.algo) : out_dir) : std::string());
  TensorMap checkpoint;
  error = nullptr;
  std::string bytes;
  try {
    if (resume && root) bytes = read_checkpoint_or_previous(path + kCheckpointFile);
    if (root) session->check_free_space(path);
  } catch (...) {
    error = std::current_exception();
  }
  world.agree(error);
  try {
    if (resume) {
      checkpoint = parse_checkpoint(world.broadcast(bytes), path + kCheckpointFile);
      session->restore_counters(checkpoint);
      if (root) session->reopen_folder(path);
      engine->restore(checkpoint);
      if (root)
        std::cerr << "resuming " << path << " at update " << session->updates_done() << "\n";
    } else if (root) {
      session->open_folder(path);
      std::cerr << "run folder: " << path << " (" << world.size() << " MPI ranks)\n";
    }
  } catch (...) {
    error = std::current_exception();
  }
  world.agree(error);

  std::exception_ptr stopped;
  try {
    run_recorded(*session, *engine);
  } catch (const InterruptedError&) {
    stopped = std::current_exception();
  } catch (const Error& e) {
    std::cerr << "dsgd: error on rank " << world.rank() << ": " << e.what() << "\n";
    if (!e.hint().empty()) std::cerr << "  hint: " << e.hint() << "\n";
    if (root && std::filesystem::exists(path + kCheckpointFile)) {
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

}  // namespace

std::string run_job(const RunConfig& config, const std::string& out_dir, bool resume) {
  if (config.engine == "mpi") return run_on_mpi(config, out_dir, resume);
  return run_simulated(config, out_dir, resume);
}

}  // namespace dsgd
