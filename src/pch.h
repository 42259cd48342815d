// Precompiled header: LibTorch and the standard library pieces nearly every file uses.
// Listed once here so that each translation unit does not re-parse them.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>
