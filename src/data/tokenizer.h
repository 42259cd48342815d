// How a text became token ids, named as a config key and a run's vocabulary record spell it; apart
// from the corpora (token_corpus.h) so that the config can name it without LibTorch.
#pragma once

#include "core/enum_names.h"

namespace dsgd {

// By bytes, by characters, or by a tokenizer outside dsgd (nanoGPT's prepared files).
enum class Tokenizer { kBytes, kCharacters, kGiven };
template <>
struct EnumNames<Tokenizer> {
  static constexpr EnumName<Tokenizer> values[] = {{Tokenizer::kBytes, "bytes"},
                                                   {Tokenizer::kCharacters, "characters"},
                                                   {Tokenizer::kGiven, "given"}};
};

}  // namespace dsgd
