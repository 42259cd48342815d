// Interrupt requests; see interrupt.h.
#include "core/interrupt.h"

#include <csignal>
#include <iterator>

namespace dsgd {
namespace {

volatile std::sig_atomic_t interrupt_signal = 0;

extern "C" void record_interrupt(int signal) { interrupt_signal = signal; }

int rank_of(int signal) {
  int rank = 0;
  for (int s : kInterruptSignals) {
    if (s == signal) return rank;
    ++rank;
  }
  return rank;
}

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = record_interrupt;
  sigemptyset(&action.sa_mask);
  for (int signal : kInterruptSignals) sigaction(signal, &action, nullptr);
}

}  // namespace

static_assert(kInterruptSignals[0] == SIGTERM && kInterruptSignals[1] == SIGINT &&
              kInterruptSignals[2] == SIGUSR1);

struct InterruptScope::Saved {
  struct sigaction actions[std::size(kInterruptSignals)];
};

InterruptScope::InterruptScope() : saved_(std::make_unique<Saved>()) {
  interrupt_signal = 0;
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    sigaction(kInterruptSignals[i], nullptr, &saved_->actions[i]);
  }
  catch_interrupts();
}

InterruptScope::~InterruptScope() {
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    sigaction(kInterruptSignals[i], &saved_->actions[i], nullptr);
  }
  interrupt_signal = 0;
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
