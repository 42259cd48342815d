// The TOML config and `--set KEY=VALUE` overrides: the first line of the input is an override,
// the rest a config file.
#include <string>

#include "fuzz_common.h"
#include "train/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t newline = text.find('\n');
  const std::string override_line = text.substr(0, newline);
  const std::string toml = newline == std::string::npos ? "" : text.substr(newline + 1);
  dsgd::fuzz::expect_dsgd_errors_only([&] {
    dsgd::RunConfig config = dsgd::parse_config(toml, {override_line});
    dsgd::parse_config(dsgd::to_toml(config), {});  // what it writes, it reads back
  });
  return 0;
}
