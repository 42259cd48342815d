// The choices of the config's enum-like keys that belong to training as a whole (the engine, the
// augmentation, the learning rate's schedule and scaling, what synchronous learners do with
// BatchNorm statistics), each named once for the codec (core/enum_names.h). Choices that belong to
// a lower layer are named beside their own enum: the all-reduce (collective_cost.h), the memory
// format and precision (models/compute_format.h), the local optimizer (algos/local_optimizer.h).
#pragma once

#include "core/enum_names.h"

namespace dsgd {

// Where the workers run: simulated in one process, or ranks of a World (engine/world.h) that are
// MPI processes. How a job of each runs is run/engine_backends.h's table.
enum class EngineKind { kSim, kMpi };
template <>
struct EnumNames<EngineKind> {
  static constexpr EnumName<EngineKind> values[] = {{EngineKind::kSim, "sim"},
                                                    {EngineKind::kMpi, "mpi"}};
};
// Whether an engine's workers are ranks, each its own process (every engine but the simulator).
constexpr bool runs_on_ranks(EngineKind engine) { return engine != EngineKind::kSim; }

// What a run computes on: the CPU, or a GPU (an MPI rank takes GPU local rank mod the GPUs).
enum class DeviceKind { kCpu, kCuda };
template <>
struct EnumNames<DeviceKind> {
  static constexpr EnumName<DeviceKind> values[] = {{DeviceKind::kCpu, "cpu"},
                                                    {DeviceKind::kCuda, "cuda"}};
};

// Training batches' augmentation: the dataset's own, crop-flip, or none.
enum class Augment { kDefault, kCropFlip, kNone };
template <>
struct EnumNames<Augment> {
  static constexpr EnumName<Augment> values[] = {
      {Augment::kDefault, "default"}, {Augment::kCropFlip, "crop-flip"}, {Augment::kNone, "none"}};
};

enum class LrScheduleKind { kConstant, kMultistep, kCosine };
template <>
struct EnumNames<LrScheduleKind> {
  static constexpr EnumName<LrScheduleKind> values[] = {{LrScheduleKind::kConstant, "constant"},
                                                        {LrScheduleKind::kMultistep, "multistep"},
                                                        {LrScheduleKind::kCosine, "cosine"}};
};

// The synchronous family's rate for P learners: lr as given, × P, or × √P.
enum class LrScaling { kNone, kLinear, kSqrt };
template <>
struct EnumNames<LrScaling> {
  static constexpr EnumName<LrScaling> values[] = {
      {LrScaling::kNone, "none"}, {LrScaling::kLinear, "linear"}, {LrScaling::kSqrt, "sqrt"}};
};

// Synchronous learners' BatchNorm running statistics (docs/design/synchronous.md).
enum class BnPolicy { kAverage, kLocal, kReestimate };
template <>
struct EnumNames<BnPolicy> {
  static constexpr EnumName<BnPolicy> values[] = {{BnPolicy::kAverage, "average"},
                                                  {BnPolicy::kLocal, "local"},
                                                  {BnPolicy::kReestimate, "reestimate"}};
};

}  // namespace dsgd
