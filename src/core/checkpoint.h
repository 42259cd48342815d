// Checkpoints: named tensors (session counters, engine and rule state) in one file written
// atomically, so that `dsgd run --resume DIR` continues a run exactly where its last checkpoint
// (an evaluation, or an interrupt) left it. Scalars and small integer lists are stored as tensors
// too: one format, one file.
//
// A checkpoint file is LibTorch's archive followed by a 20-byte trailer: "DSGDCKPT", the
// archive's length (8 bytes) and its CRC-32 (4 bytes, zlib), little-endian. A flipped byte or a
// truncated file is refused by name instead of being half-read. The previous checkpoint stays
// next to it (previous_checkpoint_path) until the new one is complete, so there is always one good
// file to resume from.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace dsgd {

using TensorMap = std::map<std::string, torch::Tensor>;

// Writes the file completely under another name, then moves the checkpoint at `path` (if any) to
// previous_checkpoint_path(path) and the new file to `path`: a crash at any point leaves at
// least one complete, checksummed checkpoint.
void save_checkpoint(const std::string& path, const TensorMap& tensors);
// "DIR/checkpoint.prev.pt" for "DIR/checkpoint.pt".
std::string previous_checkpoint_path(const std::string& path);
// The archive bytes of the file at `path`, its checksum verified. Throws ConfigError naming the
// file when it is missing, truncated, corrupt or has no checksum.
std::string read_checkpoint_file(const std::string& path);
// read_checkpoint_file(path), or, when that fails and a previous checkpoint exists and is good,
// that one's, after a warning on stderr naming both. Throws the first file's error when neither
// is good.
std::string read_checkpoint_or_previous(const std::string& path);
// parse_checkpoint(read_checkpoint_file(path)).
TensorMap load_checkpoint(const std::string& path);
// The archive's bytes, without the file trailer (to send state between MPI ranks).
std::string checkpoint_bytes(const TensorMap& tensors);
// The tensors from an archive's bytes (read_checkpoint_file's, or another rank's);
// `name` is for error messages.
TensorMap parse_checkpoint(const std::string& bytes, const std::string& name);

// The tensor stored under `key`; throws ConfigError when the checkpoint lacks it.
const torch::Tensor& checkpoint_entry(const TensorMap& tensors, const std::string& key);

torch::Tensor to_tensor(const std::vector<int64_t>& values);
torch::Tensor to_tensor(const std::vector<double>& values);
std::vector<int64_t> to_int_vector(const torch::Tensor& t);
std::vector<double> to_double_vector(const torch::Tensor& t);

}  // namespace dsgd
