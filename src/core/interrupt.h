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
// first one's request). While it lives, a second SIGINT or SIGTERM ends the process at once (as
// the signal would by default), and a first one arms a grace timer: a run still going
// kDefaultGraceSeconds later (or $DSGD_GRACE_SECONDS; 0: never), held up in a call that cannot be
// interrupted, exits with 128 + the signal. Files are written atomically, so neither leaves a
// partial one.
class InterruptScope {
 public:
  // restart_interrupted_calls: a system call the signal interrupts is restarted (SA_RESTART), so
  // that a signal in the middle of a write (a checkpoint, a metrics row) does not become an I/O
  // error and a failed run. false: it fails with EINTR, for a loop that blocks in a call (the
  // sweep's wait for its runs, which sleeps between polls) and must see the request at once.
  explicit InterruptScope(bool restart_interrupted_calls = true);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct Saved;  // the handlers found, one per signal
  std::unique_ptr<Saved> saved_;
};
inline constexpr unsigned kDefaultGraceSeconds = 120;

// The signal that asked the run to stop, or 0.
int pending_interrupt();
// For the steps before training (reading and decoding data, loading the model, planning), and for
// others that write no checkpoint (a report): throws InterruptedError naming `phase` ("decoding
// the image folder") and what is kept when a signal asked to stop. Nothing is written before
// training, so stopping there loses nothing.
void stop_if_interrupted(const std::string& phase,
                         const std::string& kept = "before training: nothing was written",
                         const std::string& hint = "run the same command again to start the run");
// "SIGINT", "SIGTERM", "SIGUSR1", or "signal N".
std::string signal_name(int signal);
// Of two requests (0: none), the one a job stops with: SIGTERM before SIGINT before SIGUSR1, so
// that the ranks of an MPI job that saw different signals all end with the same exit code.
int stronger_interrupt(int a, int b);
// The signals above in that order, for engines that agree on one by counting each.
inline constexpr int kInterruptSignals[] = {15, 2, 10};

}  // namespace dsgd
