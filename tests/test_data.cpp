// Tests of the data layer: the file readers against small files written here byte by byte (and
// against every way such a file can be broken), the named-dataset registry, synthetic data, and
// the determinism and coverage guarantees of the worker streams that runs and replays rely on.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/worker_stream.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// A fresh folder per test, removed afterwards, so tests never see each other's files.
class DataFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("dsgd_test_data_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(counter++) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const Bytes& bytes) const {
    std::string p = path(name);
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  std::string write_gzip(const std::string& name, const Bytes& bytes) const {
    std::string p = path(name);
    gzFile f = gzopen(p.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    if (!bytes.empty()) {
      EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
                static_cast<int>(bytes.size()));
    }
    EXPECT_EQ(gzclose(f), Z_OK);
    return p;
  }

  static Bytes read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
};

void put_u32(Bytes& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

Bytes idx(uint32_t magic, const std::vector<uint32_t>& dims, const Bytes& payload) {
  Bytes out;
  put_u32(out, magic);
  for (uint32_t d : dims) put_u32(out, d);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// n images of rows x cols with distinct, position-dependent bytes.
Bytes image_payload(uint32_t n, uint32_t rows, uint32_t cols) {
  Bytes out(n * rows * cols);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>((i * 37 + i / 7) % 256);
  return out;
}

Bytes label_payload(uint32_t n, uint32_t num_classes) {
  Bytes out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((i * 3) % num_classes);
  return out;
}

torch::Tensor to_tensor(const Bytes& bytes, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<uint8_t*>(bytes.data()), shape, torch::kUInt8).clone();
}

// Runs f, which must throw DataError whose message mentions `needle` (normally a file name).
void expect_data_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected DataError mentioning '" << needle << "', nothing thrown";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << needle << "'";
    EXPECT_FALSE(e.hint().empty()) << "no hint for: " << e.what();
  }
}

// ---- IDX ----

TEST_F(DataFiles, IdxPlainAndGzipReadExactly) {
  const uint32_t n = 5, rows = 3, cols = 4;
  Bytes pixels = image_payload(n, rows, cols);
  Bytes labels = label_payload(n, 10);
  Bytes image_file = idx(0x803, {n, rows, cols}, pixels);
  Bytes label_file = idx(0x801, {n}, labels);
  torch::Tensor want_images = to_tensor(pixels, {n, 1, rows, cols});
  torch::Tensor want_labels = to_tensor(labels, {n}).to(torch::kInt64);

  std::vector<std::pair<std::string, std::string>> cases = {
      {write("plain-images", image_file), write("plain-labels", label_file)},
      {write_gzip("gz-images.gz", image_file), write_gzip("gz-labels.gz", label_file)},
      // Format follows the magic bytes, not the name.
      {write_gzip("gz-named-plain", image_file), write("plain-named-gz.gz", label_file)},
  };
  for (const auto& [images_path, labels_path] : cases) {
    SCOPED_TRACE(images_path);
    Dataset d = read_idx(images_path, labels_path, 10);
    EXPECT_EQ(d.size(), n);
    EXPECT_EQ(d.num_classes, 10);
    EXPECT_EQ(d.images.scalar_type(), torch::kUInt8);
    EXPECT_EQ(d.labels.scalar_type(), torch::kInt64);
    EXPECT_EQ(d.images.sizes(), torch::IntArrayRef({n, 1, rows, cols}));
    EXPECT_TRUE(d.images.is_contiguous());
    EXPECT_TRUE(torch::equal(d.images, want_images));
    EXPECT_TRUE(torch::equal(d.labels, want_labels));
  }
}

TEST_F(DataFiles, IdxTruncatedPlainPayload) {
  Bytes file = idx(0x803, {10, 8, 8}, image_payload(10, 8, 8));
  file.resize(file.size() / 2);
  std::string images = write("cut-images", file);
  std::string labels = write("labels", idx(0x801, {10}, label_payload(10, 10)));
  expect_data_error([&] { read_idx(images, labels); }, "cut-images");
}

TEST_F(DataFiles, IdxTruncatedGzipStream) {
  // Enough pseudo-random pixels that the compressed stream is long and cut inside deflate data.
  Bytes pixels(200 * 16 * 16);
  uint32_t x = 12345;
  for (auto& p : pixels) p = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 24);
  std::string labels = write("labels", idx(0x801, {200}, label_payload(200, 10)));
  Bytes gz = read(write_gzip("full.gz", idx(0x803, {200, 16, 16}, pixels)));
  ASSERT_GT(gz.size(), 1000u);

  Bytes middle(gz.begin(), gz.begin() + gz.size() / 2);
  std::string cut_middle = write("cut-middle.gz", middle);
  expect_data_error([&] { read_idx(cut_middle, labels); }, "cut-middle.gz");

  // All data present but the CRC/length trailer missing: still an incomplete download.
  Bytes no_trailer(gz.begin(), gz.end() - 8);
  std::string cut_trailer = write("cut-trailer.gz", no_trailer);
  expect_data_error([&] { read_idx(cut_trailer, labels); }, "cut-trailer.gz");

  Bytes corrupt = gz;
  corrupt[corrupt.size() / 2] ^= 0x55;
  std::string flipped = write("corrupt.gz", corrupt);
  expect_data_error([&] { read_idx(flipped, labels); }, "corrupt.gz");
}

TEST_F(DataFiles, IdxTrailingData) {
  Bytes payload = image_payload(4, 2, 2);
  payload.push_back(7);
  Bytes file = idx(0x803, {4, 2, 2}, payload);
  std::string labels = write("labels", idx(0x801, {4}, label_payload(4, 10)));
  std::string plain = write("long-images", file);
  expect_data_error([&] { read_idx(plain, labels); }, "long-images");
  std::string gz = write_gzip("long-images.gz", file);
  expect_data_error([&] { read_idx(gz, labels); }, "long-images.gz");
}

TEST_F(DataFiles, IdxWrongMagic) {
  std::string labels = write("labels", idx(0x801, {4}, label_payload(4, 10)));
  std::string swapped = write("labels-as-images", idx(0x801, {4}, label_payload(4, 10)));
  expect_data_error([&] { read_idx(swapped, labels); }, "labels-as-images");
  std::string garbage = write("garbage", idx(0x12345678, {4, 2, 2}, image_payload(4, 2, 2)));
  expect_data_error([&] { read_idx(garbage, labels); }, "garbage");
  std::string images = write("images", idx(0x803, {4, 2, 2}, image_payload(4, 2, 2)));
  std::string images_as_labels = write("images-as-labels", idx(0x803, {4, 2, 2}, Bytes(16)));
  expect_data_error([&] { read_idx(images, images_as_labels); }, "images-as-labels");
}

TEST_F(DataFiles, IdxCountMismatch) {
  std::string images = write("five-images", idx(0x803, {5, 2, 2}, image_payload(5, 2, 2)));
  std::string labels = write("four-labels", idx(0x801, {4}, label_payload(4, 10)));
  expect_data_error([&] { read_idx(images, labels); }, "five-images");
  expect_data_error([&] { read_idx(images, labels); }, "four-labels");
}

TEST_F(DataFiles, IdxLabelOutOfRange) {
  std::string images = write("images", idx(0x803, {3, 2, 2}, image_payload(3, 2, 2)));
  std::string labels = write("bad-labels", idx(0x801, {3}, {0, 10, 1}));
  expect_data_error([&] { read_idx(images, labels, 10); }, "bad-labels");
  // The same file is fine for a reader that expects more classes.
  EXPECT_EQ(read_idx(images, labels, 11).size(), 3);
}

TEST_F(DataFiles, IdxEmptyShortHeaderAndMissing) {
  std::string labels = write("labels", idx(0x801, {4}, label_payload(4, 10)));
  std::string empty = write("empty-images", {});
  expect_data_error([&] { read_idx(empty, labels); }, "empty-images");
  std::string empty_gz = write_gzip("empty-images.gz", {});
  expect_data_error([&] { read_idx(empty_gz, labels); }, "empty-images.gz");
  std::string short_header = write("short-header", {0, 0, 8, 3, 0, 0});
  expect_data_error([&] { read_idx(short_header, labels); }, "short-header");
  expect_data_error([&] { read_idx(path("no-such-images"), labels); }, "no-such-images");
  std::string images = write("images", idx(0x803, {4, 2, 2}, image_payload(4, 2, 2)));
  expect_data_error([&] { read_idx(images, path("no-such-labels")); }, "no-such-labels");
}

// ---- CIFAR ----

Bytes cifar_records(int count, bool cifar100, int first) {
  Bytes out;
  for (int r = 0; r < count; ++r) {
    int id = first + r;
    if (cifar100) {
      out.push_back(static_cast<uint8_t>((id * 7 % 100) / 5));  // coarse
      out.push_back(static_cast<uint8_t>(id * 7 % 100));        // fine
    } else {
      out.push_back(static_cast<uint8_t>(id % 10));
    }
    for (int p = 0; p < 3072; ++p) out.push_back(static_cast<uint8_t>((p * 13 + id * 101) % 251));
  }
  return out;
}

void expect_cifar_contents(const Dataset& d, int count, bool cifar100) {
  ASSERT_EQ(d.size(), count);
  EXPECT_EQ(d.num_classes, cifar100 ? 100 : 10);
  EXPECT_EQ(d.images.sizes(), torch::IntArrayRef({count, 3, 32, 32}));
  EXPECT_TRUE(d.images.is_contiguous());
  for (int id = 0; id < count; ++id) {
    EXPECT_EQ(d.labels[id].item<int64_t>(), cifar100 ? id * 7 % 100 : id % 10);
    // Channel-major bytes: pixel p of the record is (c, y, x) with p = (c * 32 + y) * 32 + x.
    Bytes record = cifar_records(1, cifar100, id);
    Bytes pixels(record.begin() + (cifar100 ? 2 : 1), record.end());
    EXPECT_TRUE(torch::equal(d.images[id], to_tensor(pixels, {3, 32, 32}))) << "record " << id;
  }
}

TEST_F(DataFiles, Cifar10ReadsAndConcatenatesInOrder) {
  std::string a = write("a.bin", cifar_records(3, false, 0));
  std::string b = write("b.bin", cifar_records(2, false, 3));
  Dataset d = read_cifar_bin({a, b}, false);
  EXPECT_EQ(d.labels.scalar_type(), torch::kInt64);
  expect_cifar_contents(d, 5, false);
}

TEST_F(DataFiles, Cifar100UsesFineLabel) {
  std::string a = write("train.bin", cifar_records(20, true, 0));
  Dataset d = read_cifar_bin({a}, true);
  expect_cifar_contents(d, 20, true);
  EXPECT_EQ(d.labels.max().item<int64_t>(), 98);  // beyond any coarse label
}

TEST_F(DataFiles, CifarBrokenFiles) {
  std::string good = write("good.bin", cifar_records(2, false, 0));
  Bytes cut = cifar_records(3, false, 0);
  cut.resize(cut.size() - 100);
  std::string truncated = write("truncated.bin", cut);
  expect_data_error([&] { read_cifar_bin({good, truncated}, false); }, "truncated.bin");
  expect_data_error([&] { read_cifar_bin({good, truncated}, false); }, std::to_string(cut.size()));
  std::string empty = write("empty.bin", {});
  expect_data_error([&] { read_cifar_bin({empty}, false); }, "empty.bin");
  expect_data_error([&] { read_cifar_bin({good, path("missing.bin")}, false); }, "missing.bin");
  // A CIFAR-10 file read as CIFAR-100 has the wrong record size.
  expect_data_error([&] { read_cifar_bin({good}, true); }, "good.bin");

  Bytes bad_label = cifar_records(2, false, 0);
  bad_label[3073] = 10;
  std::string label10 = write("label10.bin", bad_label);
  expect_data_error([&] { read_cifar_bin({label10}, false); }, "label10.bin");
  Bytes bad_fine = cifar_records(1, true, 0);
  bad_fine[1] = 100;
  std::string fine100 = write("fine100.bin", bad_fine);
  expect_data_error([&] { read_cifar_bin({fine100}, true); }, "fine100.bin");
}

// ---- registry ----

TEST_F(DataFiles, RegistryNamesAndErrors) {
  std::vector<std::string> names;
  for (const auto& info : dataset_registry()) names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fashion-mnist", "mnist", "cifar10", "cifar100",
                                             "synthetic", "shakespeare"}));
  try {
    load_dataset("fashion-mnst", "", 0);
    ADD_FAILURE() << "unknown name accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("fashion-mnst"), std::string::npos);
    EXPECT_NE(e.hint().find("fashion-mnist"), std::string::npos);
  }
  EXPECT_THROW(load_dataset("mnist", "", 0), ConfigError);
  EXPECT_THROW(load_dataset("cifar10", "", 0), ConfigError);

  std::string missing = path("nowhere");
  try {
    load_dataset("fashion-mnist", missing, 0);
    ADD_FAILURE() << "missing folder accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos);
    EXPECT_NE(e.hint().find("apt-get install dataset-fashion-mnist"), std::string::npos);
  }
  // Folder present, files absent.
  try {
    load_dataset("cifar10", dir_.string(), 0);
    ADD_FAILURE() << "empty folder accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("data_batch_1.bin"), std::string::npos);
    EXPECT_NE(e.hint().find("https://www.cs.toronto.edu/~kriz/cifar.html"), std::string::npos);
  }
  expect_data_error([&] { load_dataset("mnist", dir_.string(), 0); }, "train-images-idx3-ubyte.gz");
}

TEST_F(DataFiles, RegistryLoadsMnistUnpackedAndCifarNested) {
  write("train-images-idx3-ubyte", idx(0x803, {6, 28, 28}, image_payload(6, 28, 28)));
  write("train-labels-idx1-ubyte", idx(0x801, {6}, label_payload(6, 10)));
  write_gzip("t10k-images-idx3-ubyte.gz", idx(0x803, {2, 28, 28}, image_payload(2, 28, 28)));
  write_gzip("t10k-labels-idx1-ubyte.gz", idx(0x801, {2}, label_payload(2, 10)));
  DatasetPair mnist = load_dataset("mnist", dir_.string(), 0);
  EXPECT_EQ(mnist.train.size(), 6);
  EXPECT_EQ(mnist.test.size(), 2);
  EXPECT_FALSE(mnist.augment);
  EXPECT_EQ(mnist.normalization.mean, std::vector<float>{0.1307f});
  EXPECT_EQ(mnist.normalization.std, std::vector<float>{0.3081f});

  fs::create_directories(dir_ / "cifar-10-batches-bin");
  for (int i = 1; i <= 5; ++i) {
    write("cifar-10-batches-bin/data_batch_" + std::to_string(i) + ".bin",
          cifar_records(2, false, 2 * (i - 1)));
  }
  write("cifar-10-batches-bin/test_batch.bin", cifar_records(3, false, 0));
  DatasetPair cifar = load_dataset("cifar10", dir_.string(), 0);
  expect_cifar_contents(cifar.train, 10, false);
  expect_cifar_contents(cifar.test, 3, false);
  EXPECT_TRUE(cifar.augment);
  EXPECT_EQ(cifar.normalization.mean.size(), 3u);
  EXPECT_EQ(cifar.normalization.std.size(), 3u);

  std::string cifar100_dir = path("c100");
  fs::create_directories(cifar100_dir);
  write("c100/train.bin", cifar_records(4, true, 0));
  write("c100/test.bin", cifar_records(1, true, 0));
  DatasetPair c100 = load_dataset("cifar100", cifar100_dir, 0);
  expect_cifar_contents(c100.train, 4, true);
  EXPECT_TRUE(c100.augment);
  EXPECT_FLOAT_EQ(c100.normalization.std[2], 0.2762f);
}

// ---- synthetic ----

TEST(Synthetic, DeterministicFromSeed) {
  Dataset a = make_synthetic(100, 3, 8, 8, 5, 7);
  Dataset b = make_synthetic(100, 3, 8, 8, 5, 7);
  Dataset c = make_synthetic(100, 3, 8, 8, 5, 8);
  EXPECT_EQ(a.images.sizes(), torch::IntArrayRef({100, 3, 8, 8}));
  EXPECT_EQ(a.images.scalar_type(), torch::kUInt8);
  EXPECT_EQ(a.labels.scalar_type(), torch::kInt64);
  EXPECT_EQ(a.num_classes, 5);
  EXPECT_TRUE(torch::equal(a.images, b.images));
  EXPECT_TRUE(torch::equal(a.labels, b.labels));
  EXPECT_FALSE(torch::equal(a.images, c.images));
  EXPECT_GE(a.labels.min().item<int64_t>(), 0);
  EXPECT_LT(a.labels.max().item<int64_t>(), 5);
  // A shorter set is a prefix of a longer one with the same seed.
  Dataset shorter = make_synthetic(40, 3, 8, 8, 5, 7);
  EXPECT_TRUE(torch::equal(shorter.images, a.images.narrow(0, 0, 40)));
}

TEST(Synthetic, RegistrySplitIsLearnable) {
  DatasetPair pair = load_dataset("synthetic", "", 3);
  ASSERT_EQ(pair.train.size(), 4096);
  ASSERT_EQ(pair.test.size(), 1024);
  EXPECT_EQ(pair.train.images.sizes(), torch::IntArrayRef({4096, 1, 28, 28}));
  EXPECT_EQ(pair.test.num_classes, 10);
  EXPECT_FALSE(pair.augment);
  EXPECT_FALSE(torch::equal(pair.train.images.narrow(0, 0, 1024), pair.test.images));
  // Nearest class mean of the train set classifies the test set: same templates, fresh noise.
  torch::Tensor x_train = pair.train.images.reshape({4096, -1}).to(torch::kFloat32);
  torch::Tensor x_test = pair.test.images.reshape({1024, -1}).to(torch::kFloat32);
  std::vector<torch::Tensor> means;
  for (int64_t k = 0; k < 10; ++k) means.push_back(x_train.index({pair.train.labels == k}).mean(0));
  torch::Tensor distances = torch::cdist(x_test, torch::stack(means));
  double accuracy =
      (distances.argmin(1) == pair.test.labels).to(torch::kFloat64).mean().item<double>();
  EXPECT_GT(accuracy, 0.95);
  // Noise is real: a sample is not its template.
  double spread =
      (x_test[0] - means[pair.test.labels[0].item<int64_t>()]).abs().mean().item<double>();
  EXPECT_GT(spread, 10.0);
  DatasetPair again = load_dataset("synthetic", "", 3);
  EXPECT_TRUE(torch::equal(again.test.images, pair.test.images));
}

// ---- worker streams ----

// n samples with label i and every pixel of image i equal to i, so a batch shows its indices.
Dataset indexed_dataset(int64_t n, int64_t channels = 1, int64_t side = 4) {
  Dataset d;
  d.name = "indexed";
  d.num_classes = n;
  d.labels = torch::arange(n, torch::kInt64);
  d.images =
      d.labels.to(torch::kUInt8).view({n, 1, 1, 1}).expand({n, channels, side, side}).contiguous();
  return d;
}

// Inputs equal the bytes, so a batch's pixels can be read back as indices.
Normalization identity() { return {{0.0f}, {1.0f / 255.0f}}; }

std::vector<int64_t> labels_of(const Batch& b) {
  torch::Tensor l = b.labels.contiguous();
  return std::vector<int64_t>(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
}

TEST(WorkerStream, BatchIsPureFunctionOfSeedWorkerK) {
  Dataset d = indexed_dataset(64);
  WorkerStream a(d, identity(), false, 8, 42, 3);
  WorkerStream b(d, identity(), false, 8, 42, 3);
  // a is asked in order, b out of order and across passes, so caching must not leak state.
  std::vector<int64_t> order = {21, 2, 9, 0, 17, 8, 7};
  std::map<int64_t, Batch> from_a;
  for (int64_t k = 0; k <= 21; ++k) from_a[k] = a.batch(k);
  for (int64_t k : order) {
    Batch y = b.batch(k);
    EXPECT_TRUE(torch::equal(from_a[k].inputs, y.inputs)) << "k=" << k;
    EXPECT_TRUE(torch::equal(from_a[k].labels, y.labels)) << "k=" << k;
  }
  Batch first = a.batch(0);
  EXPECT_EQ(first.inputs.scalar_type(), torch::kFloat32);
  EXPECT_EQ(first.labels.scalar_type(), torch::kInt64);
  EXPECT_EQ(first.inputs.sizes(), torch::IntArrayRef({8, 1, 4, 4}));
  EXPECT_TRUE(first.inputs.is_contiguous());
  EXPECT_TRUE(first.labels.is_contiguous());
  // Images and labels are gathered with the same indices.
  torch::Tensor pixel =
      first.inputs.select(3, 0).select(2, 0).select(1, 0).round().to(torch::kInt64);
  EXPECT_TRUE(torch::equal(pixel, first.labels));
}

TEST(WorkerStream, WorkersAndSeedsDiffer) {
  Dataset d = indexed_dataset(64);
  WorkerStream w0(d, identity(), false, 64, 42, 0);
  WorkerStream w1(d, identity(), false, 64, 42, 1);
  WorkerStream other_seed(d, identity(), false, 64, 43, 0);
  EXPECT_NE(labels_of(w0.batch(0)), labels_of(w1.batch(0)));
  EXPECT_NE(labels_of(w0.batch(0)), labels_of(other_seed.batch(0)));
}

TEST(WorkerStream, EachPassIsAPermutationAndPassesReshuffle) {
  Dataset d = indexed_dataset(60);
  WorkerStream s(d, identity(), false, 10, 9, 2);
  ASSERT_EQ(s.batches_per_pass(), 6);
  std::vector<std::vector<int64_t>> passes;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<int64_t> seen;
    for (int j = 0; j < 6; ++j) {
      auto l = labels_of(s.batch(pass * 6 + j));
      seen.insert(seen.end(), l.begin(), l.end());
    }
    passes.push_back(seen);
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(60);
    for (int64_t i = 0; i < 60; ++i) all[i] = i;
    EXPECT_EQ(seen, all) << "pass " << pass;
  }
  EXPECT_NE(passes[0], passes[1]);
  EXPECT_NE(passes[1], passes[2]);
  // drop_last: 64 / 10 leaves 4 samples out of every pass.
  EXPECT_EQ(WorkerStream(indexed_dataset(64), identity(), false, 10, 9, 2).batches_per_pass(), 6);
}

TEST(WorkerStream, RejectsBadBatchSize) {
  Dataset d = indexed_dataset(16);
  try {
    WorkerStream s(d, identity(), false, 17, 0, 0);
    ADD_FAILURE() << "batch larger than dataset accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("17"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("16"), std::string::npos) << e.what();
  }
  EXPECT_THROW(WorkerStream(d, identity(), false, 0, 0, 0), ConfigError);
  EXPECT_NO_THROW(WorkerStream(d, identity(), false, 16, 0, 0));
  EXPECT_THROW(WorkerStream(d, Normalization{{0.1f, 0.2f}, {1.0f, 1.0f}}, false, 4, 0, 0),
               ConfigError);
}

TEST(WorkerStream, AugmentedStreamIsDeterministic) {
  Dataset d = make_synthetic(256, 3, 32, 32, 10, 1);
  Normalization norm{{0.5f, 0.5f, 0.5f}, {0.25f, 0.25f, 0.25f}};
  WorkerStream a(d, norm, true, 32, 5, 0);
  WorkerStream b(d, norm, true, 32, 5, 0);
  WorkerStream plain(d, norm, false, 32, 5, 0);
  for (int64_t k : {0, 3, 9}) {
    Batch x = a.batch(k), y = b.batch(k), z = plain.batch(k);
    EXPECT_TRUE(torch::equal(x.inputs, y.inputs));
    EXPECT_TRUE(torch::equal(x.labels, z.labels));  // augmentation leaves the sample choice alone
    EXPECT_FALSE(torch::equal(x.inputs, z.inputs));
    EXPECT_EQ(x.inputs.sizes(), torch::IntArrayRef({32, 3, 32, 32}));
  }
}

// ---- augmentation, normalisation, seeds ----

torch::Tensor random_images(int64_t b, int64_t c, int64_t h, int64_t w, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randint(0, 256, {b, c, h, w}, torch::kUInt8);
}

TEST(Augment, DeterministicAndShapePreserving) {
  torch::Tensor images = random_images(32, 3, 32, 32, 1);
  torch::Tensor a = augment_crop_flip(images, 4, 11);
  torch::Tensor b = augment_crop_flip(images, 4, 11);
  torch::Tensor c = augment_crop_flip(images, 4, 12);
  EXPECT_EQ(a.sizes(), images.sizes());
  EXPECT_EQ(a.scalar_type(), torch::kUInt8);
  EXPECT_TRUE(a.is_contiguous());
  EXPECT_TRUE(torch::equal(a, b));
  EXPECT_FALSE(torch::equal(a, c));
}

TEST(Augment, PadZeroIsIdentityOrMirror) {
  torch::Tensor images = random_images(64, 3, 5, 7, 2);
  torch::Tensor out = augment_crop_flip(images, 0, 3);
  int flipped = 0, kept = 0;
  for (int64_t i = 0; i < 64; ++i) {
    bool same = torch::equal(out[i], images[i]);
    bool mirror = torch::equal(out[i], images[i].flip({2}));
    EXPECT_TRUE(same || mirror) << "image " << i;
    flipped += mirror;
    kept += same;
  }
  EXPECT_GT(flipped, 10);
  EXPECT_GT(kept, 10);
}

TEST(Augment, EveryOutputIsACropOfThePaddedImage) {
  const int64_t pad = 4;
  torch::Tensor images = random_images(64, 3, 8, 10, 4);
  torch::Tensor out = augment_crop_flip(images, pad, 5);
  std::set<std::pair<int64_t, int64_t>> offsets;
  for (int64_t i = 0; i < 64; ++i) {
    torch::Tensor padded = torch::constant_pad_nd(images[i], {pad, pad, pad, pad}, 0);
    int matches = 0;
    for (int64_t dy = 0; dy <= 2 * pad; ++dy) {
      for (int64_t dx = 0; dx <= 2 * pad; ++dx) {
        torch::Tensor crop = padded.narrow(1, dy, 8).narrow(2, dx, 10);
        if (torch::equal(out[i], crop) || torch::equal(out[i], crop.flip({2}))) {
          ++matches;
          offsets.insert({dy, dx});
        }
      }
    }
    EXPECT_EQ(matches, 1) << "image " << i;
  }
  EXPECT_GT(offsets.size(), 20u);  // offsets spread over the 81 possible
}

// The augmentation of a dataset on a GPU (two gathers on the device) is the byte loop's, element
// for element: the same draws from the same seed, for bytes and floats, with and without padding,
// on rectangular images. Run here on CPU tensors; on a GPU the same operations run there.
TEST(Augment, GatherOnTheDeviceEqualsTheLoop) {
  for (int64_t pad : {0, 1, 4}) {
    SCOPED_TRACE("pad " + std::to_string(pad));
    torch::Tensor bytes = random_images(64, 3, 8, 10, 6);
    EXPECT_TRUE(torch::equal(augment_crop_flip_gather(bytes, pad, 9 + pad),
                             augment_crop_flip(bytes, pad, 9 + pad)));
    torch::Tensor floats = bytes.to(torch::kFloat).div_(255.0);
    torch::Tensor gathered = augment_crop_flip_gather(floats, pad, 3);
    EXPECT_TRUE(torch::equal(gathered, augment_crop_flip(floats, pad, 3)));
    EXPECT_EQ(gathered.scalar_type(), torch::kFloat);
  }
}

TEST(Normalize, MatchesFormulaOnHandValues) {
  // One image, 2 channels of 1x2 pixels.
  torch::Tensor images = torch::tensor({0, 255, 51, 102}, torch::kUInt8).view({1, 2, 1, 2});
  Normalization norm{{0.5f, 0.2f}, {0.25f, 0.4f}};
  torch::Tensor x = normalize_images(images, norm);
  EXPECT_EQ(x.scalar_type(), torch::kFloat32);
  EXPECT_EQ(x.sizes(), images.sizes());
  std::vector<float> want = {(0 / 255.f - 0.5f) / 0.25f, (255 / 255.f - 0.5f) / 0.25f,
                             (51 / 255.f - 0.2f) / 0.4f, (102 / 255.f - 0.2f) / 0.4f};
  EXPECT_FLOAT_EQ(want[0], -2.0f);
  EXPECT_FLOAT_EQ(want[1], 2.0f);
  EXPECT_NEAR(want[3], 0.5f, 1e-6);
  torch::Tensor flat = x.contiguous().view({-1});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(flat[i].item<float>(), want[i], 1e-5) << i;
  // One value serves all channels.
  torch::Tensor single = normalize_images(images, Normalization{{0.5f}, {0.25f}});
  EXPECT_NEAR(single.view({-1})[2].item<float>(), (51 / 255.f - 0.5f) / 0.25f, 1e-5);
  EXPECT_THROW(normalize_images(images, Normalization{{0.1f, 0.2f, 0.3f}, {1, 1, 1}}), ConfigError);
}

TEST(MixSeed, SpreadsEveryArgument) {
  std::set<uint64_t> seen;
  for (uint64_t a = 0; a < 4; ++a)
    for (uint64_t b = 0; b < 4; ++b)
      for (uint64_t c = 0; c < 4; ++c)
        for (uint64_t d = 0; d < 4; ++d) seen.insert(mix_seed(a, b, c, d));
  EXPECT_EQ(seen.size(), 256u);
  EXPECT_EQ(mix_seed(1, 2), mix_seed(1, 2, 0, 0));
  EXPECT_EQ(mix_seed(1, 2, 3, 4), mix_seed(1, 2, 3, 4));
  EXPECT_NE(mix_seed(1, 2), mix_seed(2, 1));
}

// ---- the real dataset, when installed ----

TEST(FashionMnist, LoadsFromDebianPackage) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << dir << " missing (apt-get install dataset-fashion-mnist)";
  }
  DatasetPair pair = load_dataset("fashion-mnist", "", 0);
  EXPECT_EQ(pair.train.images.sizes(), torch::IntArrayRef({60000, 1, 28, 28}));
  EXPECT_EQ(pair.test.images.sizes(), torch::IntArrayRef({10000, 1, 28, 28}));
  EXPECT_EQ(pair.train.num_classes, 10);
  EXPECT_FALSE(pair.augment);
  EXPECT_FLOAT_EQ(pair.normalization.mean[0], 0.2860f);
  // Both splits are exactly balanced: 6000 and 1000 per class.
  EXPECT_TRUE(
      torch::equal(torch::bincount(pair.train.labels), torch::full({10}, 6000, torch::kInt64)));
  EXPECT_TRUE(
      torch::equal(torch::bincount(pair.test.labels), torch::full({10}, 1000, torch::kInt64)));
  // The published mean pixel of the training set, which the normalisation relies on.
  double mean = pair.train.images.to(torch::kFloat64).mean().item<double>() / 255.0;
  EXPECT_NEAR(mean, 0.2860, 5e-4);
}

}  // namespace
}  // namespace dsgd
