// The run folder: resolved config.toml, metrics.csv (one row per evaluation) and summary.json.
// Every file is written atomically (temporary file, fsync, rename), so a crash, a NaN or a
// killed job never leaves a half-written file: readers see the previous version or the new one.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/atomic_file.h"

namespace dsgd {

// The checkpoint of the run in folder `dir`, and whether the folder holds one to resume from
// (it or the previous one, core/checkpoint.h).
std::string checkpoint_file(const std::string& dir);
bool has_checkpoint(const std::string& dir);

// The columns of metrics.csv that every run has, in order; engines may add more.
const std::vector<std::string>& base_metric_columns();

class RunFolder {
 public:
  // Creates the folder (and parents). Refuses a folder that already holds a run's files, so
  // that earlier results are never overwritten.
  explicit RunFolder(std::string path);
  // Reopens the folder of an interrupted run: keeps metrics rows up to `resume_after_update`
  // updates (the checkpoint's), drops any later ones, and appends from there. Removes the
  // temporary files of writes that a kill interrupted.
  RunFolder(std::string path, int64_t resume_after_update);

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  void write_config(const std::string& toml_text);
  // Columns are fixed by the first call; a missing value is written empty.
  void append_metrics(const std::map<std::string, double>& row);
  void write_summary(const nlohmann::json& summary);
  // The summary.json the folder holds (an empty object when there is none or it is unreadable).
  nlohmann::json read_summary() const;

 private:
  // Holds an exclusive lock on PATH/.dsgd.lock for the folder's life (the kernel drops it when
  // the process ends, killed or not): a second process that opens the same folder, such as a
  // --resume while the run still goes, is refused instead of rewriting its files under it.
  void lock();
  struct LockFile {
    int fd = -1;
    LockFile() = default;
    LockFile(LockFile&& other) noexcept : fd(other.fd) { other.fd = -1; }
    LockFile& operator=(LockFile&&) = delete;
    ~LockFile();
  };
  std::string path_;
  LockFile lock_;
  std::vector<std::string> columns_;
  std::string metrics_text_;
};

// runs/<UTC timestamp>-<algo>, made unique with a numeric suffix if needed.
std::string default_run_path(const std::string& algo);

}  // namespace dsgd
