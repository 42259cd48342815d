// Checkpoint files as `--resume` reads them: the checksum trailer first, then LibTorch's archive.
// Fuzzing parse_checkpoint on raw bytes instead reaches LibTorch's own loader, which throws
// std::out_of_range on some damaged archives (dsgd now turns that into a ConfigError; regression
// input in tests/fixtures/fuzz/checkpoint/) and segfaults on others (in
// torch::jit::ScriptTypeParser::parseClassConstant, LibTorch 1.13): the CRC-32 over the archive is
// what keeps a damaged file from ever reaching that loader.
#include <string>

#include "core/checkpoint.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = dsgd::fuzz::write("checkpoint.pt", data, size);
  dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::load_checkpoint(file); });
  return 0;
}
