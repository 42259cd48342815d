// The crash report; see crash_report.h.
#include "core/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace dsgd {
namespace {

const char* g_program = "dsgd";

void write_text(const char* text) {
  // Only async-signal-safe calls from here on: write(2), not stdio.
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void report_and_die(int signal_number) {
  write_text("\n");
  write_text(g_program);
  write_text(": crashed: ");
  write_text(strsignal(signal_number));
  write_text(". The stack, innermost first:\n");
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  write_text(
      "This is a bug in dsgd or in a library it uses: please report it with this stack and "
      "the command that ran.\n");
  // SA_RESETHAND gave the signal its default action back: raising it again ends the process as
  // the crash would have (a core file where enabled, the signal as the exit status).
  raise(signal_number);
}

}  // namespace

void install_crash_report(const char* program) {
  g_program = program;
  // backtrace() loads libgcc on its first call, which allocates: done here, not in the handler.
  void* warm[1];
  backtrace(warm, 1);
  static char alternate_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof(alternate_stack);
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_handler = report_and_die;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace dsgd
