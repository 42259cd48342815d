// Arrival traces (timing.trace).
#include "engine/trace.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = dsgd::fuzz::write("trace.txt", data, size);
  dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::read_trace(file); });
  return 0;
}
