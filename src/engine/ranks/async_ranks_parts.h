// The state of one rank of the asynchronous rank engine: a server shard (an AsyncServer on its
// slice of the vector, plus what the transport tracks: who owes a message, the sends in flight)
// or a worker (its rule, batch stream and counter). Private to the async_ranks*.cpp files.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/host_staging.h"
#include "engine/async_server.h"
#include "engine/ranks/async_protocol.h"
#include "engine/ranks/async_ranks.h"
#include "engine/transport.h"

namespace dsgd {

struct AsyncRanksEngine::Server {
  int64_t shard = 0;
  int64_t shards = 1;
  int64_t params = 0;  // of the whole model
  async_protocol::Slice slice;
  std::unique_ptr<AsyncServer> server;     // on this shard's slice
  std::vector<char> owes;                  // the worker is computing, or its message is in flight
  std::vector<Transport::SendId> sending;  // the parameters last sent to each worker
  std::vector<std::chrono::steady_clock::time_point> owed_since;  // when each was sent
  torch::Tensor incoming;  // a message slice and (shard 0) its loss after it
  bool restored = false;
  int stop_signal = 0;  // shard 0: a stop signal a worker reported (0: none)

  int64_t workers() const { return server->workers(); }
  int worker_rank(int64_t worker) const { return static_cast<int>(shards + worker); }
};

struct AsyncRanksEngine::Worker {
  int64_t index = 0;
  std::unique_ptr<AsyncWorkerRule> rule;
  std::unique_ptr<WorkerStream> stream;
  std::unique_ptr<HostStaging> staging;  // its messages' way between the GPU and the transport
  int64_t next_batch = 0;

  // Rule state and batch counter, serialized for shard 0's checkpoint.
  std::string state_bytes();
  void restore_state(const std::string& bytes);
};

}  // namespace dsgd
