// Runs a sweep's points: each one an ordinary `dsgd run` in a child process (so a crash or a
// divergence ends that run only), at most `jobs` at a time, each with its share of the cores.
// The sweep folder holds sweep.json (the points and how to report them, for `dsgd report`), one
// run folder per point and a log next to each (<point>.log). Starting the sweep again skips the
// runs that finished (ok, diverged or collapsed), resumes those with a checkpoint and starts the
// rest afresh; a finished run whose config is not the point's stops the sweep before anything
// runs. Ctrl-C or SIGTERM is passed on to the running runs, which checkpoint and stop.
#pragma once

#include <string>
#include <vector>

#include "experiment/sweep_spec.h"

namespace dsgd {

struct SweepOptions {
  int jobs = 1;  // runs at the same time
  // Each run plans its threads and replicas within the cores divided by jobs (its `cores` key);
  // threads_per_run > 0 sets its `threads` instead.
  int threads_per_run = 0;
  std::string executable;  // the dsgd to run the points with (this one: /proc/self/exe)
  // When not empty, only the points in these folders run (sweep --only); sweep.json still lists
  // every point, so the report of a sweep run piece by piece sees them all.
  std::vector<std::string> only;
};

struct SweepOutcome {
  int skipped = 0;  // finished before this invocation
  int started = 0;  // run afresh or resumed by this invocation
  int ok = 0;
  int stopped = 0;  // diverged or collapsed: a result, not a failure
  int failed = 0;
  int interrupted_by = 0;  // the signal that stopped the sweep, or 0
};

// What a sweep would do with each point, from what its folder holds. Throws ConfigError when a
// point's config is bad, or a finished run in its folder was made with another config.
struct PlannedRun {
  enum Action { kFinished, kResume, kStart };
  const SweepPoint* point;
  std::string dir;  // spec.out / point.dir
  Action action;
};
std::vector<PlannedRun> plan_sweep(const SweepSpec& spec);

// Writes sweep.json into spec.out, then runs every point that is not finished yet.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options);

// The status in a run folder's summary.json ("ok", "diverged", ...), or "" when there is none.
std::string run_status(const std::string& run_dir);

}  // namespace dsgd
