// Host buffers for MPI messages of GPU tensors; see host_staging.h.
#include "core/host_staging.h"

#include <chrono>
#include <cstdlib>
#include <string>

#include "core/errors.h"

namespace dsgd {

bool host_staging_forced() {
  const char* value = std::getenv("DSGD_HOST_STAGING");
  return value != nullptr && std::string(value) == "always";
}

HostStaging::HostStaging(torch::Device device, bool force)
    : staged_(force || !device.is_cpu()), pinned_(!device.is_cpu()) {}

void HostStaging::ensure(torch::Tensor& buffer, const torch::Tensor& like) const {
  if (buffer.defined() && buffer.numel() == like.numel() && buffer.dtype() == like.dtype()) return;
  buffer = torch::empty({like.numel()},
                        torch::TensorOptions().dtype(like.dtype()).pinned_memory(pinned_));
}

torch::Tensor HostStaging::outgoing(const torch::Tensor& t, torch::Tensor& buffer) {
  if (!staged_) return t;
  ensure(buffer, t);
  copy(t, buffer);
  return buffer;
}

torch::Tensor HostStaging::incoming(const torch::Tensor& t, torch::Tensor& buffer) const {
  if (!staged_) return t;
  ensure(buffer, t);
  return buffer;
}

void HostStaging::arrived(const torch::Tensor& received, torch::Tensor& t) {
  if (!received.is_same(t)) copy(received, t);
}

void HostStaging::copy(const torch::Tensor& from, torch::Tensor& to) {
  if (!from.is_contiguous() || !to.is_contiguous() || from.numel() != to.numel()) {
    throw Error("host staging copies between contiguous tensors of one size",
                "this is a dsgd bug; report it");
  }
  const auto start = std::chrono::steady_clock::now();
  // Blocking: LibTorch then waits for the current stream after the copy, so on return the host
  // buffer holds the values, or the device tensor does, and kernels queued earlier on the stream
  // (the ones that computed `from`) have run.
  to.view({-1}).copy_(from.view({-1}), /*non_blocking=*/false);
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bytes_ += from.numel() * static_cast<int64_t>(from.element_size());
  ++copies_;
}

}  // namespace dsgd
