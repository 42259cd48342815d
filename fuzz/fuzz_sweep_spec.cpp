// Sweep specs (`dsgd sweep SPEC.toml`), through to the run configs of their points.
#include <string>

#include "experiment/sweep_spec.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  dsgd::fuzz::expect_dsgd_errors_only([&] {
    dsgd::SweepSpec spec =
        dsgd::parse_sweep_spec(text, "fuzz.toml", dsgd::fuzz::scratch().string());
    if (spec.points.size() <= 64) dsgd::check_sweep_points(spec);
  });
  return 0;
}
