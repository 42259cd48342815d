// Ctrl-C, SIGTERM (what a cluster scheduler sends before it kills a job) and SIGUSR1 (what
// Open MPI's mpirun forwards to every rank without killing them, and Slurm's `--signal` sends
// before a time limit) as a request to stop: the handler only records the signal, and the training
// loop looks at it between updates, so a run stops at an update boundary with a checkpoint it can
// resume from exactly.
#pragma once

#include <memory>
#include <string>

namespace dsgd {

// Routes SIGINT, SIGTERM and SIGUSR1 to the flag below while alive, starting with no request
// pending, and then gives the process back the handlers it had (an embedding interpreter's own:
// Python's Ctrl-C handler works again after a run from Python, and a second run does not see the
// first one's request).
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct Saved;  // the handlers found, one per signal
  std::unique_ptr<Saved> saved_;
};
// The signal that asked the run to stop, or 0.
int pending_interrupt();
// "SIGINT", "SIGTERM", "SIGUSR1", or "signal N".
std::string signal_name(int signal);
// Of two requests (0: none), the one a job stops with: SIGTERM before SIGINT before SIGUSR1, so
// that the ranks of an MPI job that saw different signals all end with the same exit code.
int stronger_interrupt(int a, int b);
// The signals above in that order, for engines that agree on one by counting each.
inline constexpr int kInterruptSignals[] = {15, 2, 10};

}  // namespace dsgd
