// A crash (a segmentation fault, a bus error, an illegal instruction, an arithmetic trap, an abort)
// reported with its stack on stderr before the process dies as the signal would have ended it, so
// that a crash on a machine one cannot log in to (a cluster node, a borrowed GPU machine) says
// where it happened. Frames in the executable print as `binary(+0xOFFSET)`:
// `addr2line -f -C -e binary 0xOFFSET` names the function and line (scripts/gpu-check.sh does).
#pragma once

namespace dsgd {

// Installs the report for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, on a stack of its own (a
// stack overflow is reported too). For executables only: a library loaded into another program
// (the Python module) leaves that program's handlers alone. `program` names the process in the
// report; it must outlive the process (a string literal, argv[0]).
void install_crash_report(const char* program);

}  // namespace dsgd
