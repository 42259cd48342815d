// Tensor folders: the input is train_x.npy (the other three files are fixed and valid: two uint8
// images [2, 1, 2, 2] and labels 0, 1), and the same bytes as train.pt, a torch.save file, next
// to a valid test.pt.
#include <torch/serialize.h>

#include <string>

#include "data/dataset.h"
#include "fuzz_common.h"

namespace {

// A .npy file (format 1.0) of `tensor`.
std::string npy(const torch::Tensor& tensor, const std::string& descr) {
  std::string shape;
  for (int64_t d : tensor.sizes()) shape += std::to_string(d) + ", ";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(static_cast<const char*>(tensor.data_ptr()),
               static_cast<size_t>(tensor.numel() * tensor.element_size()));
  return bytes;
}

void put(const std::string& name, const std::string& bytes) {
  dsgd::fuzz::write(name, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = [] {
    const torch::Tensor images = torch::arange(8).to(torch::kUInt8).view({2, 1, 2, 2});
    const torch::Tensor labels = torch::arange(2);
    put("npy/train_y.npy", npy(labels, "<i8"));
    put("npy/test_y.npy", npy(labels, "<i8"));
    put("npy/test_x.npy", npy(images, "|u1"));
    c10::Dict<std::string, torch::Tensor> dict;
    dict.insert("x", images);
    dict.insert("y", labels);
    const std::vector<char> pt = torch::pickle_save(dict);
    put("pt/test.pt", std::string(pt.begin(), pt.end()));
    return true;
  }();
  (void)ready;
  dsgd::fuzz::write("npy/train_x.npy", data, size);
  dsgd::fuzz::expect_dsgd_errors_only(
      [&] { dsgd::read_tensor_folder((dsgd::fuzz::scratch() / "npy").string()); });
  dsgd::fuzz::write("pt/train.pt", data, size);
  dsgd::fuzz::expect_dsgd_errors_only(
      [&] { dsgd::read_tensor_folder((dsgd::fuzz::scratch() / "pt").string()); });
  return 0;
}
