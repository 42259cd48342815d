// Faults at named points of a run, for the fault-injection harness (scripts/fault-table.sh and
// tests/test_limits.cpp): DSGD_FAULT = "POINT:FAULT" or "POINT:FAULT@N" makes the N-th time
// (default the first) the process reaches POINT meet FAULT, as if it came from outside:
//   SIGINT, SIGTERM, SIGKILL   the signal, raised at the point (kill(getpid(), ...));
//   ENOSPC, EROFS              the point's file write fails with that error (a full disk, a
//                              read-only folder: as root, chmod does not stop a write).
// Points: setup (the data read, before training), timing (a step timed to choose the compute
// format, before training), training (an update; on an MPI worker rank, a gradient computed),
// evaluation (its start), checkpoint (between writing a checkpoint and moving it into place; a
// write fault fails the write itself), metrics (a row of metrics.csv), report (a report's
// markdown), figure (a figure being drawn), sweep (a sweep looking at its runs, every 0.1 s). One
// fault is a state rather than an event: "cpu:NO_BF16" makes the CPU read as one without bf16
// units (its flags lose avx512_bf16, amx_bf16 and Arm's bf16) at every look, so that a test can
// give one MPI rank the CPU of another host. Under MPI, DSGD_FAULT_RANK = R keeps the fault to
// rank R. Unset, as in every real run, a point costs one getenv in the process's life.
#pragma once

namespace dsgd {

// Raises the signal fault set for `point`, if this is its turn. Counts the visit.
void fault_point(const char* point);

// The errno of the write fault set for `point`, if this is its turn, else 0. Counts the visit.
int write_fault(const char* point);

// Whether the state fault `point`:`kind` is set ("cpu", "NO_BF16"). Every look sees it.
bool state_fault(const char* point, const char* kind);

}  // namespace dsgd
