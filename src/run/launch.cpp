// The launch sequence; see launch.h.
#include "run/launch.h"

#include <iostream>

#include "core/checkpoint.h"
#include "run/host_limits.h"
#include "run/run_folder.h"
#include "train/local_steps.h"

namespace dsgd {

std::string launch(const RunConfig& config, const std::string& out_dir, bool resume,
                   LaunchSteps& steps) {
  const bool root = steps.root();
  std::unique_ptr<Session> session;
  steps.together([&] {
    check_resource_keys(config, host_limits());  // each host's own, before a thread or a folder
    session = steps.make_session(config);
  });
  // The engine allocates its state: only once every process has its session and the memory.
  std::unique_ptr<Engine> engine;
  steps.together([&] { engine = steps.build_engine(*session); });
  if (root) {
    std::cerr << steps.compute_note(*session) << session->context().compute_format_note();
    if (session->plan().family == AlgorithmFamily::kAsync)
      std::cerr << describe_local_steps(config);
  }

  const std::string path =
      steps.from_root(root ? (out_dir.empty() ? default_run_path(config.algo) : out_dir) : "");
  std::string bytes;
  steps.together([&] {
    if (!root) return;
    if (resume) bytes = read_checkpoint_or_previous(checkpoint_file(path));
    session->check_free_space(path);  // a refused run leaves its folder as it was
  });
  TensorMap checkpoint;  // outlives the run: engines may read it while running
  steps.together([&] {
    if (resume) {
      checkpoint = parse_checkpoint(steps.from_root(bytes), checkpoint_file(path));
      session->resume_from(path, checkpoint);
      engine->restore(checkpoint);
      if (root)
        std::cerr << "resuming " << path << " at update " << session->updates_done() << "\n";
    } else if (root) {
      session->open_folder(path);
      std::cerr << "run folder: " << path << steps.folder_note() << "\n";
    }
  });
  steps.train(*session, *engine, path);
  return root ? path : std::string();
}

}  // namespace dsgd
