// Which compute format a run computes in when its config says "auto" (precision, memory_format),
// and the record of that choice: the candidates the device can compute well, each one's measured
// step time, the fastest chosen. bf16 is a candidate only where the device computes it natively
// (bf16_slowness() says "" there): elsewhere LibTorch falls back to ATen's reference kernels,
// which round their sums to bf16 and run 12-15 times slower than fp32 (docs/performance.md). A
// format the config names explicitly is kept, and timed too, so that every run records the step
// it took on the machine it ran on.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/compute_format.h"

namespace dsgd {

struct FormatTiming {
  ComputeFormat format;
  // The median of a few steps after a warm-up; where several formats are compared, the least of
  // kFormatTimingRounds such medians, taken in turn with the others'.
  double step_seconds = 0.0;
};

// How many times each of several candidate formats is timed, in turn with the others, so that a
// burst of load from other work slows one timing of each, not all of one candidate's.
constexpr int kFormatTimingRounds = 3;

struct FormatChoice {
  ComputeFormat format;
  bool automatic = false;  // chosen by "auto" (else the config named it)
  // Which of the two the config left to "auto" (a named device then prices the run in its own
  // fastest format: train/cluster.h).
  bool memory_format_auto = false, precision_auto = false;
  std::string reason;                 // one line: what was compared and what won
  std::vector<FormatTiming> timings;  // every format measured, the chosen one included
  double step_seconds() const;        // the chosen format's
};

// The config's choices (nothing: "auto") as candidates, timed by `time_step` (more than one: in
// kFormatTimingRounds interleaved rounds, each keeping its least time), the fastest chosen.
// `takes_images`: the model's input is a batch of images (channels-last means something);
// `bf16_slow`: bf16_slowness() of the device ("" where bf16 is native; under MPI, another rank's
// reason where this rank has bf16 and that one has not). With `measure` false (MPI
// ranks, which must agree without comparing clocks) "auto" takes the rule instead: bf16 where
// native, channels-last for images, and only the chosen format is timed. An explicit bf16 on a
// device without it is timed beside fp32, so that the warning can state the slow-down.
// `precision_from_record`: a resumed run's precision, kept from its record rather than named by
// the resume (RunConfig::precision_from_record). A recorded bf16 is kept where bf16 is native, so
// that a run resumed on its machine continues bit for bit; where it is emulated (a resume on
// another machine) the run continues in fp32 in its layout, as "auto" would choose there (on a CPU
// with AVX2 alone bf16 runs 12-15 times slower than fp32 and sums in bf16; the reason says why).
FormatChoice choose_compute_format(std::optional<MemoryFormat> memory_format,
                                   std::optional<Precision> precision, bool takes_images,
                                   const std::string& bf16_slow, bool measure,
                                   const std::function<double(const ComputeFormat&)>& time_step,
                                   bool precision_from_record = false);

// The warning for an explicit bf16 on a device that emulates it ("" otherwise): the reason, the
// measured step times and their ratio, and what "auto" would choose.
std::string bf16_warning(const FormatChoice& choice, const std::string& bf16_slow);

// The CPU a run computes on, for its record: the model name and the units that decide its fastest
// format (cpu_format_units), as "Intel(R) Xeon(R) Platinum 8480+ (AMX)" or "AMD EPYC 7B13 (AVX2, no
// AVX-512)"; "" where /proc/cpuinfo says neither.
std::string cpu_description();

}  // namespace dsgd
