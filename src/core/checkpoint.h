// Checkpoints: named tensors (session counters, engine and rule state) in one file written
// atomically, so that `dsgd run --resume DIR` continues a run exactly where its last checkpoint
// (an evaluation, or an interrupt) left it. Scalars and small integer lists are stored as tensors
// too: one format, one file.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace dsgd {

using TensorMap = std::map<std::string, torch::Tensor>;

// Writes to a temporary file and renames it over `path`: the previous checkpoint survives a
// crash during the write.
void save_checkpoint(const std::string& path, const TensorMap& tensors);
// Throws ConfigError naming the file when it is missing or unreadable.
TensorMap load_checkpoint(const std::string& path);
// The bytes save_checkpoint would write (to send state between MPI ranks).
std::string checkpoint_bytes(const TensorMap& tensors);
// The same from the file's bytes (e.g. broadcast to MPI ranks); `name` is for error messages.
TensorMap parse_checkpoint(const std::string& bytes, const std::string& name);

// The tensor stored under `key`; throws ConfigError when the checkpoint lacks it.
const torch::Tensor& checkpoint_entry(const TensorMap& tensors, const std::string& key);

torch::Tensor to_tensor(const std::vector<int64_t>& values);
torch::Tensor to_tensor(const std::vector<double>& values);
std::vector<int64_t> to_int_vector(const torch::Tensor& t);
std::vector<double> to_double_vector(const torch::Tensor& t);

}  // namespace dsgd
