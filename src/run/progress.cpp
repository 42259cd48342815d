// Progress line and log lines; see progress.h.
#include "run/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

namespace dsgd {

std::string format_duration(double seconds) {
  auto s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

namespace {

std::mutex observer_mutex;
std::shared_ptr<const ProgressObserver> current_observer;

std::shared_ptr<const ProgressObserver> observer() {
  std::lock_guard<std::mutex> lock(observer_mutex);
  return current_observer;
}

}  // namespace

void set_progress_observer(std::shared_ptr<const ProgressObserver> observer) {
  std::lock_guard<std::mutex> lock(observer_mutex);
  current_observer = std::move(observer);
}

Progress::Progress(int64_t total_updates)
    : total_(total_updates),
      terminal_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void Progress::update(int64_t updates, double epoch, double lr, double train_loss) {
  const auto front_end = observer();
  if (!terminal_ && !front_end) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(250) && updates < total_) return;
  last_draw_ = now;
  if (front_end) {
    if (front_end->update) front_end->update(updates, total_, epoch, lr, train_loss, accuracy_);
    return;
  }
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double rate = elapsed > 0 ? static_cast<double>(updates) / elapsed : 0.0;
  double eta = rate > 0 ? static_cast<double>(total_ - updates) / rate : 0.0;
  const std::string accuracy = accuracy_ < 0.0 ? "" : fmt::format("  acc {:.4f}", accuracy_);
  std::fprintf(stderr,
               "\r\033[Kepoch %.2f  update %lld/%lld (%.0f%%)  %.0f upd/s  lr %.4g  loss %.4f%s  "
               "ETA %s",
               epoch, static_cast<long long>(updates), static_cast<long long>(total_),
               100.0 * static_cast<double>(updates) / static_cast<double>(total_), rate, lr,
               train_loss, accuracy.c_str(), format_duration(eta).c_str());
  std::fflush(stderr);
  line_open_ = true;
}

void Progress::evaluation(const std::map<std::string, double>& row) {
  if (const auto front_end = observer(); front_end && front_end->evaluation) {
    front_end->evaluation(row);
  }
}

void Progress::log(const std::string& line) {
  if (const auto front_end = observer(); front_end && front_end->log) {
    front_end->log(line);
    return;
  }
  if (line_open_) std::fprintf(stderr, "\r\033[K");
  line_open_ = false;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (line_open_) std::fprintf(stderr, "\r\033[K");
  line_open_ = false;
}

}  // namespace dsgd
