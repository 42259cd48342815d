// Host memory for a process that computes on a GPU and talks over MPI. Debian's Open MPI is not
// CUDA-aware: it reads and writes host memory only, so a tensor on the GPU goes out through a
// host buffer and comes in through one. The buffers are page-locked (pinned), which lets the
// driver copy by DMA at the bus's speed instead of through a pageable bounce buffer. On the CPU
// staging is the identity: the tensor itself is the buffer, and nothing is copied.
//
// Every copy is synchronous (the host buffer is complete, or the device tensor written, when a
// call returns): MPI reads a send buffer as soon as the send starts, and the next receive may
// overwrite a buffer whose upload were still in flight. The time the copies take is counted, so
// an engine can report what staging costs per message.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace dsgd {

// Whether the environment asks for staging on the CPU too (DSGD_HOST_STAGING=always): the MPI
// engines then take the GPU's path through host buffers, which tests check on machines without one.
bool host_staging_forced();

class HostStaging {
 public:
  // Staging for tensors on `device` (none for the CPU). `force` stages a CPU device as well,
  // through ordinary (not pinned) host buffers.
  explicit HostStaging(torch::Device device, bool force = host_staging_forced());

  bool staged() const { return staged_; }

  // What a message of `t`'s values is sent from: `t` itself, or (staged) `buffer` filled with a
  // copy of it. `buffer` is the caller's, kept between calls; it is allocated on first use.
  torch::Tensor outgoing(const torch::Tensor& t, torch::Tensor& buffer);
  // What a message for `t` is received into: `t` itself, or (staged) `buffer`. Once it is in,
  // arrived(received, t) puts it into `t`.
  torch::Tensor incoming(const torch::Tensor& t, torch::Tensor& buffer) const;
  void arrived(const torch::Tensor& received, torch::Tensor& t);

  double seconds() const { return seconds_; }  // in copies so far
  int64_t bytes() const { return bytes_; }
  int64_t copies() const { return copies_; }

 private:
  void ensure(torch::Tensor& buffer, const torch::Tensor& like) const;
  void copy(const torch::Tensor& from, torch::Tensor& to);

  bool staged_ = false;
  bool pinned_ = false;
  double seconds_ = 0.0;
  int64_t bytes_ = 0;
  int64_t copies_ = 0;
};

}  // namespace dsgd
