// Interrupt requests; see interrupt.h.
#include "core/interrupt.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iterator>

#include "core/errors.h"

namespace dsgd {
namespace {

volatile std::sig_atomic_t interrupt_signal = 0;
unsigned grace_seconds = kDefaultGraceSeconds;

bool ends_the_run(int signal) { return signal == SIGINT || signal == SIGTERM; }

// The grace period ran out: a call that does not return (a library's, a stuck disk) kept the run
// from its next update. Only async-signal-safe calls here.
extern "C" void end_after_grace(int) {
  static const char message[] =
      "dsgd: the run did not stop within the grace period after a stop request (a call that "
      "cannot be interrupted): ending now; every file written is whole, and --resume continues "
      "from the last checkpoint\n";
  ssize_t ignored = ::write(STDERR_FILENO, message, sizeof(message) - 1);
  (void)ignored;
  ::_exit(128 + interrupt_signal);
}

extern "C" void record_interrupt(int signal) {
  if (ends_the_run(signal) && ends_the_run(interrupt_signal)) {
    // A second Ctrl-C or SIGTERM: at once, as the signal's default would.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    return;
  }
  if (ends_the_run(signal) && grace_seconds > 0) ::alarm(grace_seconds);
  interrupt_signal = signal;
}

int rank_of(int signal) {
  int rank = 0;
  for (int s : kInterruptSignals) {
    if (s == signal) return rank;
    ++rank;
  }
  return rank;
}

void catch_interrupts(bool restart_interrupted_calls) {
  struct sigaction action {};
  action.sa_handler = record_interrupt;
  action.sa_flags = restart_interrupted_calls ? SA_RESTART : 0;
  sigemptyset(&action.sa_mask);
  for (int signal : kInterruptSignals) sigaction(signal, &action, nullptr);
}

}  // namespace

static_assert(kInterruptSignals[0] == SIGTERM && kInterruptSignals[1] == SIGINT &&
              kInterruptSignals[2] == SIGUSR1);

struct InterruptScope::Saved {
  struct sigaction actions[std::size(kInterruptSignals)];
  struct sigaction alarm;
};

InterruptScope::InterruptScope(bool restart_interrupted_calls) : saved_(std::make_unique<Saved>()) {
  interrupt_signal = 0;
  if (const char* text = std::getenv("DSGD_GRACE_SECONDS")) {
    char* end = nullptr;
    const unsigned long seconds = std::strtoul(text, &end, 10);
    if (end != text && *end == '\0') grace_seconds = static_cast<unsigned>(seconds);
  }
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    sigaction(kInterruptSignals[i], nullptr, &saved_->actions[i]);
  }
  struct sigaction alarm {};
  alarm.sa_handler = end_after_grace;
  sigemptyset(&alarm.sa_mask);
  sigaction(SIGALRM, &alarm, &saved_->alarm);
  catch_interrupts(restart_interrupted_calls);
}

InterruptScope::~InterruptScope() {
  ::alarm(0);
  sigaction(SIGALRM, &saved_->alarm, nullptr);
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    sigaction(kInterruptSignals[i], &saved_->actions[i], nullptr);
  }
  interrupt_signal = 0;
}

void stop_if_interrupted(const std::string& phase, const std::string& kept,
                         const std::string& hint) {
  const int signal = interrupt_signal;
  if (signal == 0) return;
  throw InterruptedError(
      fmt::format("interrupted by {} while {}, {}", signal_name(signal), phase, kept), hint,
      signal);
}

int pending_interrupt() { return interrupt_signal; }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "signal " + std::to_string(signal);
  }
}

int stronger_interrupt(int a, int b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return rank_of(a) <= rank_of(b) ? a : b;
}

}  // namespace dsgd
