// A run's config from a table of keys: how a config crosses from Python (the module's dict,
// python/bindings/dsgd_module.cpp) without becoming text. The table holds what a config file holds
// (dotted names such as "timing.shape", or nested tables), read by the same codec, with the same
// checks and errors (the closest key named for an unknown one) as the file's keys and `--set`'s.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "train/config.h"

namespace dsgd {

// Defaults, then the TOML file (if the path is not empty), then `keys`.
RunConfig load_config(const std::string& toml_path, const toml::table& keys);

// resume_config (train/config.h) with the changes as a table of keys.
RunConfig resume_config(const std::string& run_dir, const toml::table& keys);

}  // namespace dsgd
