// How the ranks of a distributed engine move bytes between them: point-to-point messages with a
// tag, sent blocking or started and waited for, received from one rank or from any, every wait
// bounded by the world's hang timeout. The rank engines (engine/ranks/) speak only this; MPI is
// one implementation (engine/mpi/mpi_transport.h), and a transport between the threads of one
// process is another. A message from one sender with one tag arrives in the order it was sent.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace dsgd {

// How a wait spends its time: spinning (a server: replies arrive within microseconds, and a sleep
// would cost every update) or spinning briefly and then sleeping between polls (ranks that share
// cores with the server, which must leave it the CPU).
enum class WaitPace { kSpin, kPatient };

class Transport {
 public:
  static constexpr int kAnySource = -1;
  // A send in flight; 0 is none.
  using SendId = int64_t;
  // On the rank that watches the others, asked every few milliseconds during a wait: whether a
  // rank's reply is overdue although this wait is short (a late worker while others arrive).
  using Overdue = std::function<bool()>;

  virtual ~Transport() = default;

  // Returns once `data` may be reused.
  virtual void send(int dest, int tag, const void* data, size_t bytes) = 0;
  // Starts a send; `data` stays untouched until wait_sent returns for its id.
  virtual SendId start_send(int dest, int tag, const void* data, size_t bytes) = 0;
  // Waits for each send of `ids` (0: none) to complete, and sets it to 0.
  virtual void wait_sent(SendId* ids, size_t count, WaitPace pace = WaitPace::kSpin) = 0;
  // Receives exactly `bytes` from `source` (kAnySource: any rank) with `tag`; returns the sender.
  virtual int receive(int source, int tag, void* data, size_t bytes,
                      WaitPace pace = WaitPace::kSpin, const Overdue& overdue = {}) = 0;
  // Receives a message of any length from `source` with `tag`.
  virtual std::string receive_bytes(int source, int tag) = 0;
  // Waits until a message from `source` is there, of any tag, and returns its tag; the message
  // stays to be received.
  virtual int next_tag(int source, WaitPace pace = WaitPace::kSpin) = 0;
};

// Typed sends and receives of the rank engines: float tensors (contiguous, on the host), a few
// numbers, nothing.
void send_floats(Transport& transport, const torch::Tensor& t, int dest, int tag);
int receive_floats(Transport& transport, torch::Tensor& t, int source, int tag,
                   WaitPace pace = WaitPace::kSpin, const Transport::Overdue& overdue = {});
void send_empty(Transport& transport, int dest, int tag);
void receive_empty(Transport& transport, int source, int tag);
template <class T>
void send_value(Transport& transport, const T& value, int dest, int tag) {
  transport.send(dest, tag, &value, sizeof(T));
}
template <class T>
T receive_value(Transport& transport, int source, int tag) {
  T value{};
  transport.receive(source, tag, &value, sizeof(T));
  return value;
}

}  // namespace dsgd
