// What the asynchronous rank engine's messages say: their tags and the orders shard 0 gives the
// other shards, the slice of the flat vector each server shard holds, and the checkpoint keys of
// the state other ranks send shard 0. The protocol built from these is in async_ranks_server.cpp
// and async_ranks_worker.cpp; nothing here knows a rule or a transport.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace dsgd {
namespace async_protocol {

enum Tag : int {
  kParams = 11,        // shard -> worker: its slice of the parameters to compute at
  kMessage = 12,       // worker -> shard: its slice of the rule's message
  kStop = 13,          // shard 0 -> worker: training is over
  kStateRequest = 14,  // shard 0 -> worker: send your state (for a checkpoint)
  kState = 15,         // worker -> shard 0: rule state and batch counter, serialized
  kOrder = 16,         // shard 0 -> shard k: what to do next (OrderCode, worker)
  kShardReply = 17,    // shard k -> shard 0: its slice of θ, its gap, or its state
  kLoss = 18,          // worker -> shard 0: the loss of the batch its message came from
  kRate = 19,          // shard 0 -> worker, before kParams: the learning rate of its next message
};

// Shard 0 sequences the other shards: every shard applies the same messages in the same order.
enum OrderCode : int64_t {
  kApply = 1,      // apply worker w's message, send w fresh parameters
  kApplyLast = 2,  // apply worker w's message; training ends with it
  kEvaluate = 3,   // send shard 0 your slice of θ and your gap
  kHold = 4,       // receive worker w's message and keep it (a checkpoint is being taken)
  kSnapshot = 5,   // send shard 0 your state
  kFinish = 6,     // collect what workers still owe you, then return
};

// Shard k's part [lo, hi) of the flat vector: as even as the split allows.
struct Slice {
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t size() const { return hi - lo; }
};
inline Slice shard_slice(int64_t shard, int64_t shards, int64_t params) {
  return {shard * params / shards, (shard + 1) * params / shards};
}

// Byte strings as uint8 checkpoint entries and back.
torch::Tensor bytes_tensor(const std::string& bytes);
std::string tensor_bytes(const torch::Tensor& t);

// Checkpoint keys of state that other ranks send to shard 0 serialized.
std::string worker_state_key(int64_t worker);
std::string shard_state_key(int64_t shard);

}  // namespace async_protocol
}  // namespace dsgd
