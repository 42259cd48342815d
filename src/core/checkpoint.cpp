// Checkpoint files; see checkpoint.h.
#include "core/checkpoint.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace dsgd {

namespace {
torch::serialize::OutputArchive archive_of(const TensorMap& tensors) {
  torch::serialize::OutputArchive archive;
  for (const auto& [name, tensor] : tensors) archive.write(name, tensor.detach().cpu());
  return archive;
}
}  // namespace

std::string checkpoint_bytes(const TensorMap& tensors) {
  std::ostringstream out;
  archive_of(tensors).save_to(out);
  return out.str();
}

void save_checkpoint(const std::string& path, const TensorMap& tensors) {
  torch::serialize::OutputArchive archive = archive_of(tensors);
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  archive.save_to(temp);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Error("cannot write checkpoint " + path, "check the run folder's permissions");
  }
}

namespace {

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

TensorMap load_checkpoint(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    throw ConfigError("no checkpoint at '" + path + "'",
                      "--resume takes a run folder whose run reached at least one evaluation");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return parse_checkpoint(bytes.str(), path);
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
