// The choice of a compute format and its record; see format_choice.h.
#include "models/format_choice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>

#include "core/errors.h"

namespace dsgd {
namespace {

bool same(const ComputeFormat& a, const ComputeFormat& b) {
  return a.memory_format == b.memory_format && a.precision == b.precision;
}

std::string timing_text(const FormatTiming& t) {
  return fmt::format("{} {:.3g} s", describe(t.format), t.step_seconds);
}

}  // namespace

double FormatChoice::step_seconds() const {
  for (const FormatTiming& t : timings) {
    if (same(t.format, format)) return t.step_seconds;
  }
  return 0.0;
}

FormatChoice choose_compute_format(std::optional<MemoryFormat> memory_format,
                                   std::optional<Precision> asked_precision, bool takes_images,
                                   const std::string& bf16_slow, bool measure,
                                   const std::function<double(const ComputeFormat&)>& time_step,
                                   bool precision_from_record) {
  const bool native_bf16 = bf16_slow.empty();
  const bool leaves_emulated_bf16 =
      precision_from_record && asked_precision == Precision::kBFloat16 && !native_bf16;
  const std::optional<Precision> precision =
      leaves_emulated_bf16 ? Precision::kFloat32 : asked_precision;
  std::vector<MemoryFormat> layouts;
  if (!memory_format) {
    layouts.push_back(MemoryFormat::kContiguous);
    if (takes_images) layouts.push_back(MemoryFormat::kChannelsLast);
    if (!measure) layouts = {layouts.back()};
  } else {
    layouts.push_back(*memory_format);
  }
  std::vector<Precision> precisions;
  if (!precision) {
    if (measure || !native_bf16) precisions.push_back(Precision::kFloat32);
    if (native_bf16) precisions.push_back(Precision::kBFloat16);
  } else {
    precisions.push_back(*precision);
  }

  FormatChoice choice;
  choice.memory_format_auto = !memory_format;
  choice.precision_auto = !precision;
  choice.automatic = choice.memory_format_auto || choice.precision_auto;
  std::vector<ComputeFormat> candidates;
  for (MemoryFormat m : layouts) {
    for (Precision p : precisions) candidates.push_back({m, p});
  }
  // A bf16 step can fail where the CPU lists bf16 units but the kernels may not use them (oneDNN
  // held below AVX512_CORE_BF16 by ONEDNN_MAX_CPU_ISA: "could not create a primitive descriptor"):
  // "auto" leaves it out and says why; an explicit bf16 stops the run with a clear error.
  //
  // Several candidates are timed in interleaved rounds, each keeping its least time: a campaign's
  // run starts while other work may load the cores in bursts, and a burst during one candidate's
  // only timing once chose the slower layout for a whole 160-epoch run (docs/performance.md).
  std::string refused;
  const int rounds = candidates.size() > 1 ? kFormatTimingRounds : 1;
  for (int round = 0; round < rounds; ++round) {
    for (const ComputeFormat& f : candidates) {
      if (!refused.empty() && f.precision == Precision::kBFloat16) continue;
      try {
        const double seconds = time_step(f);
        const auto timed = std::find_if(choice.timings.begin(), choice.timings.end(),
                                        [&](const FormatTiming& t) { return same(t.format, f); });
        if (timed == choice.timings.end()) {
          choice.timings.push_back({f, seconds});
        } else {
          timed->step_seconds = std::min(timed->step_seconds, seconds);
        }
      } catch (const Error&) {
        throw;  // dsgd's own (an interrupt while timing, say), not the kernels'
      } catch (const std::exception& e) {  // dnnl::error, c10::Error
        if (f.precision != Precision::kBFloat16) throw;
        const std::string what = e.what();
        refused = what.substr(0, what.find('\n'));
        if (!choice.precision_auto) {
          throw ConfigError(
              fmt::format("precision = \"bf16\" cannot compute on this device: a {} step failed "
                          "({}); is ONEDNN_MAX_CPU_ISA set below AVX512_CORE_BF16?",
                          describe(f), refused),
              "use precision = \"auto\" (it leaves bf16 out where it fails) or \"fp32\"");
        }
      }
    }
  }
  if (choice.timings.empty()) {  // the rule's one bf16 candidate failed: fp32 in its layouts
    for (MemoryFormat m : layouts) {
      choice.timings.push_back({{m, Precision::kFloat32}, time_step({m, Precision::kFloat32})});
    }
  }
  const auto fastest = std::min_element(
      choice.timings.begin(), choice.timings.end(),
      [](const FormatTiming& a, const FormatTiming& b) { return a.step_seconds < b.step_seconds; });
  choice.format = fastest->format;
  // The slow-down an explicit bf16 costs where it is emulated: fp32 in the same layout, beside.
  if (precision == Precision::kBFloat16 && !native_bf16) {
    choice.timings.push_back({{choice.format.memory_format, Precision::kFloat32},
                              time_step({choice.format.memory_format, Precision::kFloat32})});
  }

  std::vector<std::string> measured;
  for (const FormatTiming& t : choice.timings) measured.push_back(timing_text(t));
  const std::string bf16_note = precision          ? ""
                                : !refused.empty() ? "; bf16 is native here but failed: " + refused
                                : native_bf16      ? "; bf16 is native here"
                                                   : "; no bf16: " + bf16_slow;
  if (leaves_emulated_bf16) {
    choice.reason = fmt::format(
        "fp32, not the bf16 the run recorded, since {} (precision = \"bf16\" on resuming keeps "
        "bf16); a step {}",
        bf16_slow, fmt::join(measured, ", "));
  } else if (!choice.automatic) {
    choice.reason = fmt::format("as the config says; a step {}", fmt::join(measured, ", "));
  } else if (choice.timings.size() == 1) {
    choice.reason =
        fmt::format("auto, by rule (not timed on {}): {}{}",
                    measure ? "one candidate" : "MPI ranks", measured.front(), bf16_note);
  } else {
    choice.reason =
        fmt::format("auto: the fastest step of {}{}", fmt::join(measured, ", "), bf16_note);
  }
  return choice;
}

std::string bf16_warning(const FormatChoice& choice, const std::string& bf16_slow) {
  if (bf16_slow.empty() || choice.format.precision != Precision::kBFloat16) return "";
  std::string measured;
  if (choice.timings.size() >= 2) {
    const double bf16 = choice.timings.front().step_seconds;
    const double fp32 = choice.timings.back().step_seconds;
    measured = fmt::format(": a step took {:.3g} s in bf16 against {:.3g} s in fp32 here ({:.1f}x)",
                           bf16, fp32, bf16 / fp32);
  }
  return fmt::format(
      "warning: precision = \"bf16\", but {}; LibTorch falls back to ATen's reference kernels, "
      "which sum in bf16{} (precision = \"auto\" or \"fp32\" computes in fp32)",
      bf16_slow, measured);
}

std::string cpu_description() {
  // A run's summary is written at every evaluation; the CPU does not change under a process.
  static const std::string description = [] {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    std::string name;
    while (name.empty() && std::getline(cpuinfo, line)) {
      if (line.rfind("model name", 0) == 0) {
        name = line.substr(line.find(':') + 1);
        name.erase(0, name.find_first_not_of(' '));
      }
    }
    const std::string units = cpu_format_units();
    if (units.empty()) return name;
    return name.empty() ? units : name + " (" + units + ")";
  }();
  return description;
}

}  // namespace dsgd
