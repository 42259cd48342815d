// Byte strings as checkpoint entries, and the state keys; see async_protocol.h.
#include "engine/ranks/async_protocol.h"

namespace dsgd {
namespace async_protocol {

torch::Tensor bytes_tensor(const std::string& bytes) {
  return torch::from_blob(const_cast<char*>(bytes.data()), {static_cast<int64_t>(bytes.size())},
                          torch::kUInt8)
      .clone();
}

std::string tensor_bytes(const torch::Tensor& t) {
  torch::Tensor c = t.contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()),
                     static_cast<size_t>(c.numel()));
}

std::string worker_state_key(int64_t worker) {
  return "engine/worker/" + std::to_string(worker) + "/state";
}

std::string shard_state_key(int64_t shard) {
  return "engine/shard/" + std::to_string(shard) + "/state";
}

}  // namespace async_protocol
}  // namespace dsgd
