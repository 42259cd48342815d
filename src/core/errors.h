// The one error hierarchy of dsgd. Library code throws these; only main() turns them into exit
// codes (2 bad usage or input, 3 diverged or collapsed, 4 an MPI rank stopped answering,
// 128 + signal interrupted, 1 anything else). Every error carries a
// one-line cause and, where we can give one, a hint saying what to do.
#pragma once

#include <stdexcept>
#include <string>

namespace dsgd {

class Error : public std::runtime_error {
 public:
  Error(const std::string& what, std::string hint = "")
      : std::runtime_error(what), hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }
  virtual int exit_code() const { return 1; }

 private:
  std::string hint_;
};

// Bad command line, config key, type or value.
class ConfigError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 2; }
};

// Missing, truncated or corrupt dataset files.
class DataError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 2; }
};

// Training loss became NaN or Inf.
class DivergedError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 3; }
};

// Training loss stayed at a uniform guess's or above for a whole evaluation period after the
// warm-up: the run learns nothing, though its numbers are finite. Same exit code as divergence.
class CollapsedError : public DivergedError {
 public:
  using DivergedError::DivergedError;
};

// An MPI rank stopped answering for longer than mpi.hang_timeout (stopped, or its host gone).
class HangError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 4; }
};

// SIGINT, SIGTERM or SIGUSR1 stopped the run at an update boundary, after a checkpoint. Exits 128 +
// the signal number, as a shell reports a process the signal killed (130 for Ctrl-C, 143 for
// SIGTERM).
class InterruptedError : public Error {
 public:
  InterruptedError(const std::string& what, std::string hint, int signal)
      : Error(what, std::move(hint)), signal_(signal) {}
  int exit_code() const override { return 128 + signal_; }

 private:
  int signal_;
};

}  // namespace dsgd
