// Reading and tokenising corpora, and their windows; see token_corpus.h.
#include "data/token_corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "data/worker_stream.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

// Separates window seeds from the image streams' seeds, which are mixed from the same numbers.
constexpr uint64_t kWindowTag = 0x77696e646f777300;  // "windows"

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("cannot read {}", path.string()), "check the path");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The text of a file, or of a folder's .txt files in name order, each ending in a newline.
std::string read_text(const std::string& path) {
  if (!fs::exists(path)) {
    throw DataError(fmt::format("no text at {}", path),
                    "give a text file, a folder of .txt files, or a folder with train.bin and "
                    "val.bin (scripts/prepare-shakespeare.sh makes one)");
  }
  if (!fs::is_directory(path)) return read_whole(path);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") files.push_back(entry);
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const fs::path& file : files) {
    text += read_whole(file);
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  return text;
}

// The UTF-8 characters of `text`, each as its bytes; DataError at the first invalid sequence.
std::vector<std::string> utf8_characters(const std::string& text, const std::string& path) {
  std::vector<std::string> characters;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80           ? 1
                          : (lead >> 5) == 0x6  ? 2
                          : (lead >> 4) == 0xE  ? 3
                          : (lead >> 3) == 0x1E ? 4
                                                : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    }
    if (!valid) {
      throw DataError(fmt::format("{}: byte {} is not UTF-8 text", path, i),
                      "tokenise it by bytes (the bytes tokenizer), or convert it to UTF-8");
    }
    characters.push_back(text.substr(i, length));
    i += length;
  }
  return characters;
}

TokenCorpus split(std::vector<int32_t> ids, double validation_fraction, const std::string& path) {
  const auto n = static_cast<int64_t>(ids.size());
  const int64_t held_out =
      std::max<int64_t>(1, std::llround(static_cast<double>(n) * validation_fraction));
  if (n - held_out < 2 || held_out < 2) {
    throw DataError(
        fmt::format("{}: {} tokens are too few to split into training and validation", path, n),
        "give a longer text");
  }
  torch::Tensor all = torch::tensor(ids, torch::kInt32);
  TokenCorpus corpus;
  corpus.name = path;
  corpus.train = all.narrow(0, 0, n - held_out).clone();
  corpus.validation = all.narrow(0, n - held_out, held_out).clone();
  return corpus;
}

}  // namespace

TokenCorpus read_text_corpus(const std::string& path, Tokenizer tokenizer,
                             double validation_fraction, const Vocabulary* vocabulary) {
  const std::string text = read_text(path);
  if (text.empty()) throw DataError(fmt::format("{}: no text", path), "give a non-empty text");
  std::vector<int32_t> ids;
  Vocabulary used;
  used.tokenizer = tokenizer;
  if (tokenizer == Tokenizer::kBytes) {
    for (char c : text) ids.push_back(static_cast<unsigned char>(c));
    used.size = 256;
  } else if (tokenizer == Tokenizer::kCharacters) {
    const std::vector<std::string> characters = utf8_characters(text, path);
    if (vocabulary != nullptr) {
      used = *vocabulary;
    } else {
      used.characters = characters;
      std::sort(used.characters.begin(), used.characters.end());
      used.characters.erase(std::unique(used.characters.begin(), used.characters.end()),
                            used.characters.end());
      used.size = static_cast<int64_t>(used.characters.size());
    }
    std::map<std::string, int32_t> id_of;
    for (size_t i = 0; i < used.characters.size(); ++i) {
      id_of[used.characters[i]] = static_cast<int32_t>(i);
    }
    for (const std::string& c : characters) {
      auto found = id_of.find(c);
      if (found == id_of.end()) {
        throw DataError(
            fmt::format("{}: the character '{}' is not in the run's vocabulary", path, c),
            "give the text the run was started with");
      }
      ids.push_back(found->second);
    }
  } else {
    throw DataError("a text is tokenised by bytes or by characters",
                    "this is a dsgd bug: the tokenizer 'given' belongs to prepared token files");
  }
  TokenCorpus corpus = split(std::move(ids), validation_fraction, path);
  corpus.vocabulary = used;
  return corpus;
}

bool is_token_bin_folder(const std::string& path) {
  return fs::is_directory(path) && fs::exists(fs::path(path) / "train.bin") &&
         fs::exists(fs::path(path) / "val.bin");
}

TokenCorpus read_token_bins(const std::string& folder, int64_t vocabulary_size) {
  auto read_bin = [&](const char* name) {
    const fs::path file = fs::path(folder) / name;
    const std::string bytes = read_whole(file);
    if (bytes.empty() || bytes.size() % 2 != 0) {
      throw DataError(fmt::format("{}: {} bytes are not a whole number of uint16 tokens",
                                  file.string(), bytes.size()),
                      "write the tokens as nanoGPT's prepare.py does: np.uint16, little-endian");
    }
    std::vector<int32_t> ids(bytes.size() / 2);
    for (size_t i = 0; i < ids.size(); ++i) {
      const auto low = static_cast<unsigned char>(bytes[2 * i]);
      const auto high = static_cast<unsigned char>(bytes[2 * i + 1]);
      ids[i] = static_cast<int32_t>(low | (high << 8));
      if (ids[i] >= vocabulary_size) {
        throw DataError(fmt::format("{}: token {} is {}, not below the vocabulary size {}",
                                    file.string(), i, ids[i], vocabulary_size),
                        "give the vocabulary size the tokens were made with (GPT-2's: 50257)");
      }
    }
    return torch::tensor(ids, torch::kInt32);
  };
  TokenCorpus corpus;
  corpus.name = folder;
  corpus.train = read_bin("train.bin");
  corpus.validation = read_bin("val.bin");
  corpus.vocabulary = {Tokenizer::kGiven, vocabulary_size, {}};
  return corpus;
}

bool is_token_corpus(const std::string& dataset) {
  if (dataset == kShakespeare || is_token_bin_folder(dataset)) return true;
  std::error_code ec;
  if (fs::is_regular_file(dataset, ec)) return true;
  if (!fs::is_directory(dataset, ec) || fs::exists(fs::path(dataset) / "train", ec)) return false;
  for (const auto& entry : fs::directory_iterator(dataset, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") return true;
  }
  return false;
}

TokenCorpus load_token_corpus(const std::string& dataset, const std::string& data_dir,
                              const TextSource& source) {
  std::string path = dataset;
  if (dataset == kShakespeare) {
    path = data_dir.empty() ? std::string(kShakespeareDir) : data_dir;
    if (!fs::is_directory(path)) {
      throw DataError(fmt::format("{}: the Shakespeare corpus is not there", path),
                      "run scripts/prepare-shakespeare.sh (it writes data/shakespeare), or set "
                      "data_dir to the folder it wrote");
    }
  }
  if (is_token_bin_folder(path)) return read_token_bins(path, source.vocabulary_size);
  if (source.vocabulary.empty()) return read_text_corpus(path, source.tokenizer);
  const Vocabulary recorded = parse_vocabulary_record(source.vocabulary);
  TokenCorpus corpus = read_text_corpus(path, recorded.tokenizer, 0.1, &recorded);
  corpus.name = dataset;
  return corpus;
}

std::string vocabulary_record(const Vocabulary& vocabulary) {
  nlohmann::json record = {{"tokenizer", enum_name(vocabulary.tokenizer)},
                           {"size", vocabulary.size}};
  if (vocabulary.tokenizer == Tokenizer::kCharacters) record["characters"] = vocabulary.characters;
  return record.dump();
}

Vocabulary parse_vocabulary_record(const std::string& text) {
  try {
    const nlohmann::json record = nlohmann::json::parse(text);
    Vocabulary vocabulary;
    const std::string name = record.at("tokenizer").get<std::string>();
    const std::optional<Tokenizer> tokenizer = find_enum<Tokenizer>(name);
    if (!tokenizer) throw DataError("unknown tokenizer '" + name + "'");
    vocabulary.tokenizer = *tokenizer;
    vocabulary.size = record.at("size").get<int64_t>();
    if (vocabulary.tokenizer == Tokenizer::kCharacters) {
      vocabulary.characters = record.at("characters").get<std::vector<std::string>>();
      if (static_cast<int64_t>(vocabulary.characters.size()) != vocabulary.size) {
        throw DataError("the characters' count is not the vocabulary's size");
      }
    }
    return vocabulary;
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("a vocabulary record that is not one: {}", e.what()),
                    "the run folder's record was changed; restore it");
  }
}

torch::Tensor training_windows(const torch::Tensor& tokens, int64_t count, int64_t seq_len,
                               uint64_t seed, int64_t worker, int64_t batch) {
  const int64_t n = tokens.size(0);
  if (n <= seq_len + 1) {
    throw DataError(fmt::format("{} training tokens are too few for windows of seq_len + 1 = {}", n,
                                seq_len + 1),
                    "use a shorter seq_len or a longer text");
  }
  std::mt19937_64 rng(
      mix_seed(seed ^ kWindowTag, static_cast<uint64_t>(worker), static_cast<uint64_t>(batch)));
  std::vector<int64_t> starts(static_cast<size_t>(count));
  for (int64_t& start : starts) {
    start = static_cast<int64_t>(uniform_below(rng, static_cast<uint64_t>(n - seq_len)));
  }
  const torch::Tensor index = torch::tensor(starts, torch::kLong).unsqueeze(1) +
                              torch::arange(seq_len + 1, torch::kLong).unsqueeze(0);
  return tokens.index({index}).to(torch::kLong);
}

torch::Tensor validation_windows(const torch::Tensor& tokens, int64_t seq_len,
                                 int64_t max_windows) {
  const int64_t n = tokens.size(0);
  int64_t windows = n > seq_len ? (n - 1) / seq_len : 0;
  if (windows == 0) {
    throw DataError(fmt::format("{} validation tokens are too few for one window of seq_len + 1 "
                                "= {}",
                                n, seq_len + 1),
                    "use a shorter seq_len or a longer validation text");
  }
  if (max_windows > 0) windows = std::min(windows, max_windows);
  const torch::Tensor index = torch::arange(windows, torch::kLong).mul(seq_len).unsqueeze(1) +
                              torch::arange(seq_len + 1, torch::kLong).unsqueeze(0);
  return tokens.index({index}).to(torch::kLong);
}

}  // namespace dsgd
