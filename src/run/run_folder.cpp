// Run folder writing; see run_folder.h.
#include "run/run_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/checkpoint.h"
#include "core/errors.h"
#include "core/fault_injection.h"

namespace dsgd {

std::string checkpoint_file(const std::string& dir) { return dir + "/checkpoint.pt"; }

bool has_checkpoint(const std::string& dir) {
  return std::filesystem::exists(checkpoint_file(dir)) ||
         std::filesystem::exists(previous_checkpoint_path(checkpoint_file(dir)));
}

namespace fs = std::filesystem;

const std::vector<std::string>& base_metric_columns() {
  static const std::vector<std::string> columns = {
      "epoch",     "updates",  "sim_time",       "wall_time",     "lr",     "train_loss",
      "test_loss", "test_acc", "staleness_mean", "staleness_max", "gap_rms"};
  return columns;
}

RunFolder::RunFolder(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  if (fs::exists(fs::path(path_) / "metrics.csv") || fs::exists(fs::path(path_) / "summary.json")) {
    throw ConfigError("run folder '" + path_ + "' already holds a run",
                      "choose another --out, or remove that folder if you no longer need it");
  }
  fs::create_directories(path_, ec);
  if (ec) {
    throw ConfigError("cannot create run folder '" + path_ + "': " + ec.message(),
                      "choose a writable --out");
  }
  lock();
}

RunFolder::LockFile::~LockFile() {
  if (fd >= 0) ::close(fd);
}

void RunFolder::lock() {
  const std::string name = file(".dsgd.lock");
  const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;  // a folder that takes no new file fails at its first write, with its error
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t got = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    throw ConfigError(
        fmt::format("run folder '{}' is in use by another dsgd process{}", path_,
                    got > 0 ? fmt::format(" (pid {})", std::string(holder, got)) : ""),
        "wait for that run to end, or stop it (Ctrl-C, or kill PID: it checkpoints), then "
        "--resume");
  }
  lock_.fd = fd;
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // Only the message above reads it.
  }
}

namespace {

// The clock's columns keep every digit (shortest round trip): a synchronous run is re-timed on
// another cluster from them (dsgd report --cluster), exactly.
bool full_precision(const std::string& column) {
  static const std::vector<std::string> exact = {"sim_time", "seconds", "compute_time",
                                                 "comm_time"};
  return std::find(exact.begin(), exact.end(), column) != exact.end() ||
         (column.size() > 6 && column.compare(column.size() - 6, 6, "_bytes") == 0);
}

// A process killed inside write_file_atomically leaves its temporary (NAME.tmp.PID) behind; it
// was never renamed, so nothing reads it, and a resumed run writes its own.
void remove_interrupted_writes(const std::string& run_folder) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_folder, ec)) {
    if (entry.is_regular_file() &&
        entry.path().filename().string().find(".tmp.") != std::string::npos) {
      fs::remove(entry.path(), ec);
    }
  }
}

}  // namespace

RunFolder::RunFolder(std::string path, int64_t resume_after_update) : path_(std::move(path)) {
  if (fs::is_directory(path_)) lock();
  std::ifstream in(file("metrics.csv"));
  std::string line;
  if (!in || !std::getline(in, line)) {
    // A run stopped before its first evaluation has a checkpoint but no metrics yet.
    if (fs::exists(file("config.toml"))) {
      remove_interrupted_writes(path_);
      return;
    }
    throw ConfigError("'" + path_ + "' holds no run to resume (no config.toml, no metrics.csv)",
                      "--resume takes the folder of an earlier run");
  }
  std::stringstream header(line);
  for (std::string column; std::getline(header, column, ',');) columns_.push_back(column);
  auto updates_column = std::find(columns_.begin(), columns_.end(), "updates") - columns_.begin();
  metrics_text_ = line + "\n";
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    size_t column = static_cast<size_t>(updates_column);
    if (column < cells.size() && std::stoll(cells[column]) <= resume_after_update) {
      metrics_text_ += line + "\n";
    }
  }
  remove_interrupted_writes(path_);
  write_file_atomically(file("metrics.csv"), metrics_text_);
}

void RunFolder::write_config(const std::string& toml_text) {
  write_file_atomically(file("config.toml"), toml_text);
}

void RunFolder::append_metrics(const std::map<std::string, double>& row) {
  if (columns_.empty()) {
    columns_ = base_metric_columns();
    for (const auto& [name, value] : row) {
      if (std::find(columns_.begin(), columns_.end(), name) == columns_.end()) {
        columns_.push_back(name);
      }
    }
    metrics_text_ = fmt::format("{}\n", fmt::join(columns_, ","));
  }
  std::vector<std::string> cells;
  for (const auto& column : columns_) {
    auto it = row.find(column);
    if (it == row.end()) {
      cells.emplace_back();
    } else if (std::isfinite(it->second) && it->second == std::floor(it->second) &&
               std::fabs(it->second) < 1e15) {
      cells.push_back(fmt::format("{}", static_cast<int64_t>(it->second)));
    } else if (full_precision(column)) {
      cells.push_back(fmt::format("{}", it->second));
    } else {
      cells.push_back(fmt::format("{:.6g}", it->second));
    }
  }
  std::string text = metrics_text_ + fmt::format("{}\n", fmt::join(cells, ","));
  fault_point("metrics");
  if (const int error = write_fault("metrics")) {
    throw Error(fmt::format("cannot write {}: {}", file("metrics.csv"), std::strerror(error)),
                "free some space, or make the run folder writable; the last checkpoint is intact: "
                "continue with dsgd run --resume");
  }
  write_file_atomically(file("metrics.csv"), text);
  metrics_text_ = std::move(text);  // only once the file holds it
}

nlohmann::json RunFolder::read_summary() const {
  std::ifstream in(file("summary.json"));
  if (!in) return nlohmann::json::object();
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return nlohmann::json::object();
  }
}

void RunFolder::write_summary(const nlohmann::json& summary) {
  write_file_atomically(file("summary.json"), summary.dump(2) + "\n");
}

std::string default_run_path(const std::string& algo) {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  std::string base = fmt::format("runs/{}-{}", stamp, algo);
  std::string path = base;
  for (int i = 2; fs::exists(path); ++i) path = fmt::format("{}-{}", base, i);
  return path;
}

}  // namespace dsgd
