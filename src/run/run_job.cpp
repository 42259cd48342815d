// Job dispatch; see run_job.h.
#include "run/run_job.h"

#include <iostream>

#include "algos/catalog.h"
#include "core/errors.h"
#include "engine/async_sim.h"
#include "engine/single_worker.h"
#include "run/session.h"

namespace dsgd {

std::string run_job(const RunConfig& config, const std::string& out_dir, bool resume) {
  const AlgorithmInfo& algo = find_algorithm(config.algo);
  if (config.engine == "mpi") {
    throw ConfigError("engine = \"mpi\" is not available in this build yet",
                      "use engine = \"sim\" (the default)");
  }
  if (algo.family == AlgorithmFamily::kSync) {
    throw ConfigError("algo = \"" + config.algo + "\" has no engine in this build yet",
                      "use an asynchronous algorithm or sgd");
  }
  Session session(config);
  // Engines validate their own inputs (e.g. trace files) before the run folder exists.
  std::unique_ptr<AsyncSimulator> async_sim;
  if (algo.family == AlgorithmFamily::kAsync) async_sim = std::make_unique<AsyncSimulator>(session);
  std::string path = out_dir.empty() ? default_run_path(config.algo) : out_dir;
  TensorMap checkpoint;
  if (resume) {
    checkpoint = session.resume_folder(path);
    if (async_sim) async_sim->restore(checkpoint);
    std::cerr << "resuming " << path << " at update " << session.updates_done() << "\n";
  } else {
    session.open_folder(path);
    std::cerr << "run folder: " << path << "\n";
  }
  try {
    if (async_sim) {
      async_sim->run();
    } else {
      train_single_worker(session, resume ? &checkpoint : nullptr);
    }
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
