// How a model's forward pass computes, apart from its weights: the memory layout of activations
// (contiguous NCHW, or channels-last NHWC, which oneDNN's CPU convolutions and GPU tensor cores
// prefer) and the arithmetic precision (float32, or bfloat16 mixed precision: convolutions and
// matrix products in bf16 under LibTorch's autocast, while everything dsgd keeps stays float32:
// the weights, the gradients the rules see, every rule's state, BatchNorm's running statistics,
// the loss). Neither choice changes the flat parameter vector, so rules, checkpoints and MPI
// messages are the same in every format, and a run may resume in another one.
#pragma once

#include <torch/torch.h>

#include <string>

#include "core/enum_names.h"

namespace dsgd {

enum class MemoryFormat { kContiguous, kChannelsLast };
enum class Precision { kFloat32, kBFloat16 };

// The config's and the records' names (memory_format, precision; "auto" is the codec's).
template <>
struct EnumNames<MemoryFormat> {
  static constexpr EnumName<MemoryFormat> values[] = {
      {MemoryFormat::kContiguous, "contiguous"}, {MemoryFormat::kChannelsLast, "channels-last"}};
};
template <>
struct EnumNames<Precision> {
  static constexpr EnumName<Precision> values[] = {{Precision::kFloat32, "fp32"},
                                                   {Precision::kBFloat16, "bf16"}};
};

struct ComputeFormat {
  MemoryFormat memory_format = MemoryFormat::kContiguous;
  Precision precision = Precision::kFloat32;
};

// "channels-last, bf16 mixed precision" and the like, for the log.
std::string describe(const ComputeFormat& format);

// A batch of images in the layout the format asks for (inputs of other ranks pass unchanged).
// Convolutions propagate the layout of their input, so converting the batch is enough: the
// weights keep their contiguous views of the flat vector (oneDNN reorders ResNet-20's 0.27M
// weights per call at no measurable cost next to the activations).
torch::Tensor to_memory_format(torch::Tensor inputs, MemoryFormat format);

// While alive, this thread's operations on `device` run under bf16 autocast (when the precision
// asks for it). Autocast's switch is thread-local, so each computing thread opens its own scope
// (Model::predict does). Leaving restores the thread's previous state and empties autocast's
// cache of bf16 copies of weights: dsgd updates weights in place, so a copy kept until the next
// forward pass would silently compute with the old weights.
class AutocastScope {
 public:
  AutocastScope(Precision precision, torch::Device device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType device_type_ = c10::DeviceType::CPU;
  bool was_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kBFloat16;
};

// Why bf16 would be slow or impossible on `device`, or "" when the hardware computes bf16 natively
// (a CPU with AVX-512 BF16 or AMX, an Arm CPU with BF16, an NVIDIA GPU of compute capability 8.0
// or later). Elsewhere LibTorch emulates bf16 through float32 and a step takes longer than in
// float32.
std::string bf16_slowness(torch::Device device);

// The CPU's units that decide which compute format is fastest on it, as its flags say: "AMX",
// "AVX-512 BF16, no AMX", "AVX-512, no BF16", "AVX2, no AVX-512", "no AVX2" (x86); "BF16" or
// "no BF16" (Arm); "" where /proc/cpuinfo lists no flags. Native bf16 exactly where
// bf16_slowness(CPU) is "".
std::string cpu_format_units();

// How LibTorch computes bf16 convolutions and matrix products on this CPU (docs/performance.md,
// "bf16 on CPUs without AVX-512"). ATen hands them to oneDNN where the CPU has AVX-512 BW, VL and
// DQ, or Arm's BF16 (and oneDNN is on): oneDNN sums in float32 and rounds each result once, with
// AVX-512 BF16 or AMX instructions (native) or by converting to float32 (emulated). Elsewhere
// ATen's reference kernels run; LibTorch 1.13's round every product and every partial sum of a
// convolution's forward pass to bf16, and run 12-15 times slower than fp32.
enum class Bf16Path { kOneDnnNative, kOneDnnEmulated, kAtenReference };
Bf16Path cpu_bf16_path();
std::string describe(Bf16Path path);

}  // namespace dsgd
