// Liveness of the ranks of an MPI job while it trains. Every wait of the MPI engines goes through
// Watchdog::wait_until, which polls instead of blocking: meanwhile every other rank answers rank
// 0's pings, and rank 0, once a wait has lasted half the hang timeout (or the engine says that a
// rank's reply is overdue), pings every rank. A rank that does not answer within the other half is
// stopped (SIGSTOP), or its host is gone without closing its sockets: rank 0 throws HangError
// naming it, and the job ends instead of waiting forever. If every rank answers, the job is slow,
// not stuck, and the wait goes on. Pings travel on a communicator of their own, so they never mix
// with the engines' messages. Rank 0 itself is not watched (it is the one waiting); set-up
// collectives before training block as usual.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "engine/transport.h"

namespace dsgd {

class Watchdog {
 public:
  explicit Watchdog(MPI_Comm world);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Seconds after which rank 0 gives up on a silent rank (0: never), and how to name a rank in
  // the message ("worker 2 (rank 3)").
  void watch(double timeout_seconds, std::function<std::string(int)> describe_rank);
  double timeout() const { return timeout_; }

  // Polls `done` until it returns true. On rank 0 `overdue`, asked every few milliseconds, may
  // report a wait that is too long although this one is short (a worker whose message is late
  // while others keep arriving).
  void wait_until(const std::function<bool()>& done, WaitPace pace = WaitPace::kSpin,
                  const std::function<bool()>& overdue = {});
  // Waits for a non-blocking MPI call to complete.
  void wait(MPI_Request& request, const char* call, WaitPace pace = WaitPace::kSpin,
            const std::function<bool()>& overdue = {});

 private:
  using Clock = std::chrono::steady_clock;
  // Non-root ranks: answers the pings that have arrived.
  void answer_pings();
  // Rank 0: pings every rank and waits half the timeout for answers; throws HangError naming
  // the ranks that gave none.
  void check_ranks();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  double timeout_ = 0.0;
  int64_t ping_ = 0;  // the number of the last ping sent (rank 0)
  std::function<std::string(int)> describe_;
};

}  // namespace dsgd
