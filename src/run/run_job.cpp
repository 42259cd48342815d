// Job dispatch; see run_job.h.
#include "run/run_job.h"

#include <iostream>

#include "algos/catalog.h"
#include "core/errors.h"
#include "engine/async_sim.h"
#include "engine/single_worker.h"
#include "engine/sync_sim.h"
#include "run/session.h"

namespace dsgd {

namespace {

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

}  // namespace

std::string run_job(const RunConfig& config, const std::string& out_dir, bool resume) {
  const AlgorithmInfo& algo = find_algorithm(config.algo);
  if (config.engine == "mpi") {
    throw ConfigError("engine = \"mpi\" is not available in this build yet",
                      "use engine = \"sim\" (the default)");
  }
  Session session(config);
  std::unique_ptr<Engine> engine = make_simulator(session, algo.family);
  std::string path = out_dir.empty() ? default_run_path(config.algo) : out_dir;
  TensorMap checkpoint;  // outlives the run: engines may read it while running
  if (resume) {
    checkpoint = session.resume_folder(path);
    engine->restore(checkpoint);
    std::cerr << "resuming " << path << " at update " << session.updates_done() << "\n";
  } else {
    session.open_folder(path);
    std::cerr << "run folder: " << path << "\n";
  }
  try {
    engine->run();
  } catch (const DivergedError& e) {
    session.write_summary("diverged", e.what());
    throw;
  } catch (const std::exception& e) {
    session.write_summary("failed", e.what());
    throw;
  }
  session.write_summary("ok");
  return path;
}

}  // namespace dsgd
