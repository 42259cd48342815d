// What a caught exception means to whoever ends the call, in one place: the exit code `dsgd run`
// ends with (core/errors.h lists them), the one-line cause and the hint. The CLI prints it and
// exits with the code, the MPI launcher aborts the job with the code, and the Python module raises
// the exception class that matches the error's type.
#pragma once

#include <exception>
#include <string>

namespace dsgd {

struct ErrorReport {
  int exit_code = 1;
  std::string message;
  std::string hint;
};

// dsgd's errors keep their code and hint; LibTorch's errors (without their C++ backtrace) and any
// other std::exception are exit code 1. Call it with std::current_exception() inside a catch.
ErrorReport report_error(std::exception_ptr error);

}  // namespace dsgd
