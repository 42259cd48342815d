// Token corpora: text tokenised by bytes and by characters with the split held out, nanoGPT's
// uint16 files read as their tokens, bad files refused with the file named, the vocabulary's
// record read back, and windows that are consecutive tokens, a pure function of (seed, worker,
// batch). Every text is one the test writes.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_helpers.h"
#include "core/errors.h"
#include "data/token_corpus.h"

namespace dsgd {
namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h

fs::path write_text(const std::string& name, const std::string& text) {
  const fs::path path = fresh_dir(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<int32_t> values(const torch::Tensor& t) {
  return std::vector<int32_t>(t.data_ptr<int32_t>(), t.data_ptr<int32_t>() + t.numel());
}

TEST(TokenCorpus, BytesAreTheirOwnIdsAndTheLastTenthIsHeldOut) {
  const fs::path file = write_text("tokens_bytes.txt", "abcdefghij\xc3\xa9");  // 12 bytes
  const TokenCorpus corpus = read_text_corpus(file.string(), Tokenizer::kBytes, 0.25);
  EXPECT_EQ(corpus.vocabulary.size, 256);
  EXPECT_EQ(values(corpus.train),
            (std::vector<int32_t>{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'}));
  EXPECT_EQ(values(corpus.validation), (std::vector<int32_t>{'j', 0xc3, 0xa9}));
  fs::remove(file);
}

TEST(TokenCorpus, CharactersAreTheTextsOwnSortedAndRecorded) {
  const fs::path folder = fresh_dir("tokens_chars");
  fs::create_directories(folder);
  std::ofstream(folder / "b.txt") << "ba\xc3\xa9";  // no newline at the end: one is added
  std::ofstream(folder / "a.txt") << "ab\n";
  std::ofstream(folder / "notes.md") << "zzz";  // not a .txt file: left out
  const TokenCorpus corpus = read_text_corpus(folder.string(), Tokenizer::kCharacters, 0.3);
  // "ab\nba\u00e9\n": characters sorted by their bytes: "\n" "a" "b" "\u00e9".
  const Vocabulary& v = corpus.vocabulary;
  EXPECT_EQ(v.size, 4);
  EXPECT_EQ(v.characters, (std::vector<std::string>{"\n", "a", "b", "\xc3\xa9"}));
  EXPECT_EQ(values(corpus.train), (std::vector<int32_t>{1, 2, 0, 2, 1}));
  EXPECT_EQ(values(corpus.validation), (std::vector<int32_t>{3, 0}));
  // The record reads back, and a resumed run tokenises with it; an unknown character is refused.
  const Vocabulary again = parse_vocabulary_record(vocabulary_record(v));
  EXPECT_EQ(again.characters, v.characters);
  EXPECT_EQ(again.tokenizer, Tokenizer::kCharacters);
  const fs::path other = write_text("tokens_other.txt", "ab\nab\nba\n");
  EXPECT_EQ(values(read_text_corpus(other.string(), Tokenizer::kCharacters, 0.3, &again).train),
            (std::vector<int32_t>{1, 2, 0, 1, 2, 0}));
  const fs::path unknown = write_text("tokens_unknown.txt", "abcabcabc");
  EXPECT_THROW(read_text_corpus(unknown.string(), Tokenizer::kCharacters, 0.3, &again), DataError);
  EXPECT_THROW(parse_vocabulary_record("{\"tokenizer\": \"words\", \"size\": 3}"), DataError);
  for (const auto& p : {folder, other, unknown}) fs::remove_all(p);
}

TEST(TokenCorpus, BadTextIsRefusedNamingIt) {
  const fs::path latin1 = write_text("tokens_latin1.txt", "caf\xe9 au lait, encore");
  try {
    read_text_corpus(latin1.string(), Tokenizer::kCharacters);
    FAIL() << "Latin-1 text was read as UTF-8";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(latin1.string() + ": byte 3 is not UTF-8"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(read_text_corpus(latin1.string(), Tokenizer::kBytes));
  EXPECT_THROW(read_text_corpus(fresh_dir("tokens_missing").string(), Tokenizer::kBytes),
               DataError);
  const fs::path tiny = write_text("tokens_tiny.txt", "ab");
  EXPECT_THROW(read_text_corpus(tiny.string(), Tokenizer::kBytes), DataError);
  for (const auto& p : {latin1, tiny}) fs::remove(p);
}

TEST(TokenCorpus, NanoGptBinsAreLittleEndianUint16) {
  const fs::path folder = fresh_dir("tokens_bins");
  fs::create_directories(folder);
  // Tokens 1, 258 and 50256 (GPT-2's last), then 7 and 9.
  std::ofstream(folder / "train.bin", std::ios::binary).write("\x01\x00\x02\x01\x50\xc4", 6);
  std::ofstream(folder / "val.bin", std::ios::binary).write("\x07\x00\x09\x00", 4);
  ASSERT_TRUE(is_token_bin_folder(folder.string()));
  const TokenCorpus corpus = read_token_bins(folder.string(), 50257);
  EXPECT_EQ(values(corpus.train), (std::vector<int32_t>{1, 258, 50256}));
  EXPECT_EQ(values(corpus.validation), (std::vector<int32_t>{7, 9}));
  EXPECT_EQ(corpus.vocabulary.tokenizer, Tokenizer::kGiven);
  try {
    read_token_bins(folder.string(), 50000);
    FAIL() << "token 50256 was read below a vocabulary of 50000";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("train.bin: token 2 is 50256"), std::string::npos)
        << e.what();
  }
  std::ofstream(folder / "val.bin", std::ios::binary).write("\x07\x00\x09", 3);
  EXPECT_THROW(read_token_bins(folder.string(), 50257), DataError);
  fs::remove_all(folder);
}

TEST(TokenCorpus, WindowsAreConsecutiveTokensDrawnBySeedWorkerAndBatch) {
  const torch::Tensor tokens = torch::arange(100, torch::kInt32);
  const torch::Tensor w = training_windows(tokens, 8, 5, 1, 0, 0);
  ASSERT_EQ(w.sizes(), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(w.scalar_type(), torch::kLong);
  for (int64_t i = 0; i < 8; ++i) {
    const int64_t start = w[i][0].item<int64_t>();
    EXPECT_LE(start + 5, 99);
    EXPECT_TRUE(torch::equal(w[i], torch::arange(start, start + 6, torch::kLong)));
  }
  EXPECT_TRUE(torch::equal(w, training_windows(tokens, 8, 5, 1, 0, 0)));
  EXPECT_FALSE(torch::equal(w, training_windows(tokens, 8, 5, 1, 1, 0)));  // another worker
  EXPECT_FALSE(torch::equal(w, training_windows(tokens, 8, 5, 1, 0, 1)));  // another batch
  EXPECT_FALSE(torch::equal(w, training_windows(tokens, 8, 5, 2, 0, 0)));  // another seed
  // Every start is drawn: over many windows the first and last possible starts both appear.
  const torch::Tensor starts = training_windows(tokens, 4000, 5, 1, 0, 0).select(1, 0);
  EXPECT_EQ(starts.min().item<int64_t>(), 0);
  EXPECT_EQ(starts.max().item<int64_t>(), 94);
  EXPECT_THROW(training_windows(torch::arange(6, torch::kInt32), 1, 5, 1, 0, 0), DataError);

  // Validation: fixed windows overlapping by one token, every token after the first a target.
  const torch::Tensor v = validation_windows(torch::arange(12, torch::kInt32), 5);
  ASSERT_EQ(v.sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_TRUE(torch::equal(v[0], torch::arange(0, 6, torch::kLong)));
  EXPECT_TRUE(torch::equal(v[1], torch::arange(5, 11, torch::kLong)));
  EXPECT_EQ(validation_windows(torch::arange(100, torch::kInt32), 5, 3).size(0), 3);
  EXPECT_THROW(validation_windows(torch::arange(5, torch::kInt32), 5), DataError);
}

}  // namespace
}  // namespace dsgd
