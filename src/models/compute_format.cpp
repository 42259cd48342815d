// Memory layout and precision of a forward pass; see compute_format.h. Model::predict, the one
// entry every training step, evaluation and BatchNorm re-estimation goes through, is here too:
// it is where a model meets its format.
#include "models/compute_format.h"

#include <ATen/detail/CUDAHooksInterface.h>

#include <fstream>
#include <sstream>

#include "core/fault_injection.h"
#include "core/torch_compat.h"
#include "models/model.h"

namespace dsgd {

std::string describe(const ComputeFormat& format) {
  return std::string(enum_name(format.memory_format)) +
         (format.precision == Precision::kBFloat16 ? ", bf16 mixed precision" : ", fp32");
}

torch::Tensor to_memory_format(torch::Tensor inputs, MemoryFormat format) {
  if (format != MemoryFormat::kChannelsLast || inputs.dim() != 4) return inputs;
  return inputs.contiguous(torch::MemoryFormat::ChannelsLast);
}

AutocastScope::AutocastScope(Precision precision, torch::Device device)
    : active_(precision == Precision::kBFloat16), device_type_(device.type()) {
  if (!active_) return;
  was_enabled_ = compat::autocast_enabled(device_type_);
  previous_dtype_ = compat::autocast_dtype(device_type_);
  compat::set_autocast_dtype(device_type_, at::kBFloat16);
  compat::set_autocast_enabled(device_type_, true);
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  compat::set_autocast_enabled(device_type_, was_enabled_);
  compat::set_autocast_dtype(device_type_, previous_dtype_);
  // The cache is per thread too; the autograd graph keeps its own references to the copies the
  // backward pass needs, so emptying the cache here loses nothing.
  at::autocast::clear_cache();
}

namespace {

// The CPU's feature flags as Linux lists them ("flags" on x86, "Features" on Arm), less the bf16
// units under the fault "cpu:NO_BF16" (core/fault_injection.h).
std::string cpu_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) {
      std::string flags = " " + line.substr(line.find(':') + 1) + " ";
      if (state_fault("cpu", "NO_BF16")) {
        for (const std::string unit : {" avx512_bf16 ", " amx_bf16 ", " bf16 "}) {
          for (size_t at; (at = flags.find(unit)) != std::string::npos;) {
            flags.replace(at, unit.size(), " ");
          }
        }
      }
      return flags;
    }
  }
  return "";
}

bool has_flag(const std::string& flags, const std::string& flag) {
  return flags.find(" " + flag + " ") != std::string::npos;
}

}  // namespace

std::string bf16_slowness(torch::Device device) {
  if (device.is_cuda()) {
    // True from compute capability 8.0 (Ampere) on, where tensor cores compute bf16.
    if (at::detail::getCUDAHooks().supportsBFloat16ConvolutionWithCuDNNv8()) return "";
    return "this GPU has no bf16 tensor cores (compute capability below 8.0)";
  }
  const std::string flags = cpu_flags();
  if (has_flag(flags, "avx512_bf16") || has_flag(flags, "amx_bf16") || has_flag(flags, "bf16")) {
    return "";
  }
  return flags.empty() ? "this system does not list its CPU's features (no /proc/cpuinfo)"
                       : "this CPU has neither AVX-512 BF16 nor AMX (nor Arm's BF16)";
}

std::string cpu_format_units() {
  const std::string flags = cpu_flags();
  if (flags.empty()) return "";
  if (has_flag(flags, "amx_bf16")) return "AMX";
  if (has_flag(flags, "avx512_bf16")) return "AVX-512 BF16, no AMX";
  if (has_flag(flags, "bf16")) return "BF16";  // Arm's
  if (has_flag(flags, "avx512f")) return "AVX-512, no BF16";
  if (has_flag(flags, "avx2")) return "AVX2, no AVX-512";
  return has_flag(flags, "sse2") ? "no AVX2" : "no BF16";
}

Bf16Path cpu_bf16_path() {
  const std::string flags = cpu_flags();
  const bool onednn = at::globalContext().userEnabledMkldnn() &&
                      ((has_flag(flags, "avx512bw") && has_flag(flags, "avx512vl") &&
                        has_flag(flags, "avx512dq")) ||
                       has_flag(flags, "bf16"));
  if (!onednn) return Bf16Path::kAtenReference;
  return bf16_slowness(torch::kCPU).empty() ? Bf16Path::kOneDnnNative : Bf16Path::kOneDnnEmulated;
}

std::string describe(Bf16Path path) {
  switch (path) {
    case Bf16Path::kOneDnnNative:
      return "oneDNN's bf16 kernels, native (float32 sums, one rounding per result)";
    case Bf16Path::kOneDnnEmulated:
      return "oneDNN's bf16 kernels, emulated through float32 (float32 sums, one rounding per "
             "result)";
    case Bf16Path::kAtenReference:
      break;
  }
  return "ATen's reference kernels (no oneDNN bf16 on this CPU: sums rounded to bf16 term by "
         "term)";
}

torch::Tensor Model::predict(torch::Tensor x) {
  AutocastScope autocast(format_.precision, x.device());
  torch::Tensor logits = forward(to_memory_format(std::move(x), format_.memory_format));
  // The loss, its sum over the test set and argmax see float32 logits in every format.
  return logits.to(torch::kFloat);
}

}  // namespace dsgd
