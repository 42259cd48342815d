// Interrupt requests; see interrupt.h.
#include "run/interrupt.h"

#include <csignal>

namespace dsgd {
namespace {

volatile std::sig_atomic_t interrupt_signal = 0;

extern "C" void record_interrupt(int signal) { interrupt_signal = signal; }

}  // namespace

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = record_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int pending_interrupt() { return interrupt_signal; }

}  // namespace dsgd
