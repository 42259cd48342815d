// Pings, answers and the hang timeout; see mpi_watchdog.h.
#include "engine/mpi/mpi_watchdog.h"

#include <fmt/format.h>

#include <iostream>
#include <thread>

#include "core/errors.h"
#include "engine/mpi/mpi_world.h"

namespace dsgd {
namespace {

enum Tag : int { kPing = 1, kPong = 2 };

// How often rank 0 asks `overdue`, how long a patient wait spins before it sleeps, and how long
// it sleeps between polls.
constexpr auto kOverdueEvery = std::chrono::milliseconds(10);
constexpr auto kSpinFirst = std::chrono::microseconds(100);
constexpr auto kPatientSleep = std::chrono::microseconds(50);

}  // namespace

Watchdog::Watchdog(MPI_Comm world) {
  check_mpi(MPI_Comm_dup(world, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  describe_ = [](int rank) { return fmt::format("rank {}", rank); };
}

Watchdog::~Watchdog() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Watchdog::watch(double timeout_seconds, std::function<std::string(int)> describe_rank) {
  timeout_ = timeout_seconds;
  if (describe_rank) describe_ = std::move(describe_rank);
}

void Watchdog::answer_pings() {
  int arrived = 0;
  MPI_Status status;
  check_mpi(MPI_Iprobe(0, kPing, comm_, &arrived, &status), "MPI_Iprobe");
  while (arrived) {
    long long ping = 0;
    check_mpi(MPI_Recv(&ping, 1, MPI_LONG_LONG, 0, kPing, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    check_mpi(MPI_Send(&ping, 1, MPI_LONG_LONG, 0, kPong, comm_), "MPI_Send");
    check_mpi(MPI_Iprobe(0, kPing, comm_, &arrived, &status), "MPI_Iprobe");
  }
}

void Watchdog::check_ranks() {
  std::cerr << fmt::format(
      "dsgd: rank 0 has waited {:g} s (half of mpi.hang_timeout) for a rank; pinging them all\n",
      timeout_ / 2);
  long long ping = ++ping_;
  for (int r = 1; r < size_; ++r) {
    check_mpi(MPI_Send(&ping, 1, MPI_LONG_LONG, r, kPing, comm_), "MPI_Send");
  }
  std::vector<char> answered(static_cast<size_t>(size_), 0);
  answered[0] = 1;
  int missing = size_ - 1;
  const auto window = std::chrono::duration<double>(timeout_ / 2);
  const auto asked = Clock::now();
  while (missing > 0 && Clock::now() - asked < window) {
    int arrived = 0;
    MPI_Status status;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, kPong, comm_, &arrived, &status), "MPI_Iprobe");
    if (!arrived) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    long long pong = 0;
    check_mpi(MPI_Recv(&pong, 1, MPI_LONG_LONG, status.MPI_SOURCE, kPong, comm_, MPI_STATUS_IGNORE),
              "MPI_Recv");
    // An answer to an earlier ping (from a rank that was slow then) does not count now.
    if (pong == ping && !answered[static_cast<size_t>(status.MPI_SOURCE)]) {
      answered[static_cast<size_t>(status.MPI_SOURCE)] = 1;
      --missing;
    }
  }
  if (missing == 0) {
    std::cerr << "dsgd: every rank answered: slow, not stuck; waiting on\n";
    return;
  }
  std::string silent;
  for (int r = 1; r < size_; ++r) {
    if (answered[static_cast<size_t>(r)]) continue;
    silent += (silent.empty() ? "" : ", ") + describe_(r);
  }
  throw HangError(
      fmt::format("{} stopped answering: rank 0 waited more than {:g} s, then had no answer to a "
                  "ping within {:g} s (mpi.hang_timeout = {:g}); the process is stopped "
                  "(SIGSTOP), hung, or its host is unreachable",
                  silent, timeout_ / 2, timeout_ / 2, timeout_),
      "check that host and process; if a step legitimately takes longer than half of "
      "mpi.hang_timeout, raise it");
}

void Watchdog::wait_until(const std::function<bool()>& done, WaitPace pace,
                          const std::function<bool()>& overdue) {
  if (done()) return;
  const bool judge = rank_ == 0 && timeout_ > 0 && size_ > 1;
  const auto half = std::chrono::duration<double>(timeout_ / 2);
  auto start = Clock::now();
  auto next_overdue_check = start + kOverdueEvery;
  while (!done()) {
    const auto now = Clock::now();
    if (rank_ != 0) {
      answer_pings();
    } else if (judge) {
      bool late = now - start > half;
      if (!late && overdue && now >= next_overdue_check) {
        late = overdue();
        next_overdue_check = now + kOverdueEvery;
      }
      if (late) {
        check_ranks();
        // Every rank answered: slow, not stuck. Ask again only after another half timeout.
        start = Clock::now();
        next_overdue_check = start + std::chrono::duration_cast<Clock::duration>(half);
      }
    }
    if (pace == WaitPace::kPatient && now - start > kSpinFirst)
      std::this_thread::sleep_for(kPatientSleep);
  }
}

void Watchdog::wait(MPI_Request& request, const char* call, WaitPace pace,
                    const std::function<bool()>& overdue) {
  wait_until(
      [&] {
        int complete = 0;
        check_mpi(MPI_Test(&request, &complete, MPI_STATUS_IGNORE), call);
        return complete != 0;
      },
      pace, overdue);
}

}  // namespace dsgd
