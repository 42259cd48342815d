// Ctrl-C and SIGTERM (what a cluster scheduler sends before it kills a job) as a request to stop:
// the handler only records the signal, and the training loop looks at it between updates, so a
// run stops at an update boundary with a checkpoint it can resume from exactly.
#pragma once

namespace dsgd {

// Routes SIGINT and SIGTERM to the flag below (for the rest of the process).
void catch_interrupts();
// The signal that asked the run to stop, or 0.
int pending_interrupt();

}  // namespace dsgd
