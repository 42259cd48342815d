// Progress reporting: on a terminal, one line rewritten in place with rate and ETA; otherwise
// (logs, CI) a plain line per evaluation, so log files stay readable.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace dsgd {

// Where progress goes instead of stderr, for a front end that draws it itself (the Python
// module's tqdm bar, or its lines in a notebook): the live state at most a few times a second,
// and every log line; and, for a front end that records runs (a user's tracker), each
// evaluation's metrics row as metrics.csv gets it. One for the process, set while a run is going
// (nullptr: stderr). Each is called from the training thread, which waits for it to return.
struct ProgressObserver {
  std::function<void(int64_t updates, int64_t total, double epoch, double lr, double train_loss,
                     double accuracy)>
      update;  // accuracy < 0: none yet
  std::function<void(const std::string& line)> log;
  std::function<void(const std::map<std::string, double>& row)> evaluation;
};
void set_progress_observer(std::shared_ptr<const ProgressObserver> observer);

class Progress {
 public:
  explicit Progress(int64_t total_updates);
  // Cheap to call every update; redraws at most a few times a second on a terminal.
  void update(int64_t updates, double epoch, double lr, double train_loss);
  // The latest test accuracy, shown on the live line from then on.
  void set_accuracy(double accuracy) { accuracy_ = accuracy; }
  // Always printed, as its own line.
  void log(const std::string& line);
  // An evaluation's metrics row, for the observer that records them (nothing without one).
  void evaluation(const std::map<std::string, double>& row);
  void finish();

 private:
  int64_t total_;
  bool terminal_;
  bool line_open_ = false;
  double accuracy_ = -1.0;  // none yet
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

std::string format_duration(double seconds);

}  // namespace dsgd
