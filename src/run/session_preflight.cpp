// The checks a run passes before it writes anything: the memory its plan estimates, and the free
// space its checkpoints need. Part of Session (session.h).
#include <fmt/format.h>

#include <filesystem>

#include "core/errors.h"
#include "run/session.h"

namespace dsgd {

void Session::check_memory(int rank, int ranks_on_host) const {
  MemoryEstimate estimate = estimate_memory(plan_, context_, rank);
  for (int64_t* part :
       {&estimate.server, &estimate.workers, &estimate.replicas, &estimate.dataset}) {
    *part *= ranks_on_host;
  }
  dsgd::check_memory(estimate, this_machine().available_bytes, config());
}

int64_t Session::checkpoint_bytes_estimate(const std::string& checkpoint_file) {
  if (std::filesystem::exists(checkpoint_file)) {
    return static_cast<int64_t>(std::filesystem::file_size(checkpoint_file));
  }
  int64_t bytes = 0;
  if (engine_checkpoint_ && !plan_.on_ranks) {
    TensorMap state;
    engine_checkpoint_(state);
    for (const auto& [name, tensor] : state) bytes += static_cast<int64_t>(tensor.nbytes());
  } else {
    FlatModel& model = context_.model();
    bytes = static_cast<int64_t>(model.params().nbytes() + model.buffers().nbytes()) +
            report_.server_bytes.value_or(0);
  }
  return bytes;
}

void Session::check_free_space(const std::string& path) {
  const std::string file = checkpoint_file(path);
  const int64_t checkpoint = checkpoint_bytes_estimate(file);
  int64_t kept = 0;  // checkpoints already on disk, which the room needed includes
  for (const std::string& existing : {file, previous_checkpoint_path(file)}) {
    if (std::filesystem::exists(existing)) ++kept;
  }
  constexpr int64_t kMargin = 1 << 20;  // metrics.csv, summary.json, config.toml
  const int64_t needed = (3 - kept) * checkpoint + kMargin;
  // The folder, or (not made yet) the nearest folder above it that exists.
  std::filesystem::path existing = std::filesystem::absolute(path);
  while (!std::filesystem::exists(existing) && existing.has_parent_path() &&
         existing.parent_path() != existing) {
    existing = existing.parent_path();
  }
  std::error_code error;
  const std::filesystem::space_info space = std::filesystem::space(existing, error);
  if (error || static_cast<int64_t>(space.available) >= needed) return;
  auto mb = [](int64_t bytes) { return static_cast<double>(bytes) / 1e6; };
  throw ConfigError(
      fmt::format("not enough free space for the checkpoints of {}: {:.1f} MB free, {:.1f} MB "
                  "needed ({} more checkpoint(s) of {:.1f} MB: a write keeps the previous, the "
                  "current and the new one at once)",
                  path, mb(static_cast<int64_t>(space.available)), mb(needed), 3 - kept,
                  mb(checkpoint)),
      "free some space there, or choose another run folder with --out");
}

}  // namespace dsgd
