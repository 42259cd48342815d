// Checkpoint files; see checkpoint.h.
#include "core/checkpoint.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/fault_injection.h"

namespace dsgd {

namespace {
// The tensor as it is written: on the host (checkpoints are device-free), and with a storage of
// its own when it is a view into a larger one (engine state often is: a learner's parameters are
// a slice of one flat state vector). Writing a view would store the whole storage; LibTorch 2.x
// writes an empty slice's storage empty but keeps its offset, and then cannot read it back.
torch::Tensor standalone(const torch::Tensor& tensor) {
  torch::Tensor host = tensor.detach().cpu();
  const bool owns_its_storage =
      host.storage_offset() == 0 && host.is_contiguous() &&
      host.storage().nbytes() == static_cast<size_t>(host.numel()) * host.element_size();
  return owns_its_storage ? host : host.clone(at::MemoryFormat::Contiguous);
}

torch::serialize::OutputArchive archive_of(const TensorMap& tensors) {
  torch::serialize::OutputArchive archive;
  for (const auto& [name, tensor] : tensors) archive.write(name, standalone(tensor));
  return archive;
}
}  // namespace

std::string checkpoint_bytes(const TensorMap& tensors) {
  std::ostringstream out;
  archive_of(tensors).save_to(out);
  return out.str();
}

namespace {

constexpr char kMagic[] = "DSGDCKPT";  // 8 bytes, without the terminating zero
constexpr size_t kMagicSize = 8;
constexpr size_t kTrailerSize = kMagicSize + 8 + 4;

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
uint64_t get_le(const std::string& in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + static_cast<size_t>(i)]))
             << (8 * i);
  }
  return value;
}
uint32_t crc_of(const char* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data), chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

TensorMap read_archive(torch::serialize::InputArchive& archive) {
  TensorMap tensors;
  for (const auto& key : archive.keys()) {
    torch::Tensor t;
    archive.read(key, t);
    tensors[key] = t;
  }
  return tensors;
}

}  // namespace

std::string previous_checkpoint_path(const std::string& path) {
  std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + ".prev" + p.extension().string())).string();
}

void save_checkpoint(const std::string& path, const TensorMap& tensors) {
  std::string content = checkpoint_bytes(tensors);
  const uint64_t length = content.size();
  const uint32_t crc = crc_of(content.data(), content.size());
  content.append(kMagic, kMagicSize);
  put_le(content, length, 8);
  put_le(content, crc, 4);
  const std::string fresh = path + ".new";
  if (const int error = write_fault("checkpoint")) {
    throw Error(fmt::format("cannot write {}: {}", fresh, std::strerror(error)),
                "free some space, or make the run folder writable; the previous checkpoint is "
                "intact: continue with dsgd run --resume");
  }
  write_file_atomically(fresh, content);
  fault_point("checkpoint");  // the new checkpoint whole, not yet in place
  std::error_code error;
  if (std::filesystem::exists(path)) {
    std::filesystem::rename(path, previous_checkpoint_path(path), error);
  }
  if (!error) std::filesystem::rename(fresh, path, error);
  if (error) {
    throw Error("cannot move the new checkpoint into place at " + path + ": " + error.message(),
                "check the run folder's permissions; " + fresh + " holds the new checkpoint");
  }
}

std::string read_checkpoint_file(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    throw ConfigError("no checkpoint at '" + path + "'",
                      "--resume takes a run folder whose run reached at least one evaluation");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string bytes = buffer.str();
  const std::string hint =
      "the file is damaged or was written by an older dsgd; resume from another checkpoint or "
      "start a new run";
  if (bytes.size() < kTrailerSize ||
      bytes.compare(bytes.size() - kTrailerSize, kMagicSize, kMagic, kMagicSize) != 0) {
    throw ConfigError("checkpoint '" + path + "' is truncated or has no checksum", hint);
  }
  const size_t archive_size = bytes.size() - kTrailerSize;
  const uint64_t length = get_le(bytes, archive_size + kMagicSize, 8);
  const uint32_t crc = static_cast<uint32_t>(get_le(bytes, archive_size + kMagicSize + 8, 4));
  if (length != archive_size) {
    throw ConfigError("checkpoint '" + path + "' is truncated: " + std::to_string(archive_size) +
                          " bytes of " + std::to_string(length),
                      hint);
  }
  bytes.resize(archive_size);
  if (crc_of(bytes.data(), bytes.size()) != crc) {
    throw ConfigError("checkpoint '" + path + "' is corrupt: its checksum does not match", hint);
  }
  return bytes;
}

std::string read_checkpoint_or_previous(const std::string& path) {
  try {
    return read_checkpoint_file(path);
  } catch (const ConfigError& first) {
    const std::string previous = previous_checkpoint_path(path);
    if (!std::filesystem::exists(previous)) throw;
    std::string bytes;
    try {
      bytes = read_checkpoint_file(previous);
    } catch (const ConfigError&) {
      throw first;
    }
    std::cerr << "dsgd: warning: " << first.what() << "; resuming from the previous checkpoint, "
              << previous << ", instead\n";
    return bytes;
  }
}

TensorMap load_checkpoint(const std::string& path) {
  return parse_checkpoint(read_checkpoint_file(path), path);
}

TensorMap parse_checkpoint(const std::string& bytes, const std::string& name) {
  try {
    torch::serialize::InputArchive archive;
    std::istringstream in(bytes);
    archive.load_from(in);
    return read_archive(archive);
  } catch (const c10::Error& e) {
    throw ConfigError("checkpoint '" + name + "' is unreadable: " + e.what_without_backtrace(),
                      "the file is damaged; resume from an earlier copy or start a new run");
  } catch (const std::exception& e) {
    // LibTorch's unpickler also throws plain std::out_of_range on some damaged archives (found
    // by fuzz/fuzz_checkpoint.cpp; tests/fixtures/fuzz/).
    throw ConfigError("checkpoint '" + name + "' is unreadable: " + e.what(),
                      "the file is damaged; resume from an earlier copy or start a new run");
  }
}

const torch::Tensor& checkpoint_entry(const TensorMap& tensors, const std::string& key) {
  auto it = tensors.find(key);
  if (it == tensors.end()) {
    throw ConfigError("checkpoint lacks '" + key + "'",
                      "it was written by another algorithm or version; start a new run");
  }
  return it->second;
}

torch::Tensor to_tensor(const std::vector<int64_t>& values) {
  return torch::tensor(torch::ArrayRef<int64_t>(values), torch::kLong).clone();
}
torch::Tensor to_tensor(const std::vector<double>& values) {
  return torch::tensor(torch::ArrayRef<double>(values), torch::kDouble).clone();
}
std::vector<int64_t> to_int_vector(const torch::Tensor& t) {
  torch::Tensor c = t.to(torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}
std::vector<double> to_double_vector(const torch::Tensor& t) {
  torch::Tensor c = t.to(torch::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace dsgd
