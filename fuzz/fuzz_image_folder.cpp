// Image folders: the input is one image file (read as PNG, then as JPEG by its name), in a
// folder whose other image is a valid 2x2 grey PNG.
#include <stb/stb_image_write.h>

#include "data/dataset.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = [] {
    const unsigned char pixels[4] = {0, 64, 128, 255};
    const auto dir = dsgd::fuzz::scratch() / "images";
    std::filesystem::create_directories(dir / "train/a");
    std::filesystem::create_directories(dir / "test/a");
    stbi_write_png((dir / "test/a/ok.png").c_str(), 2, 2, 1, pixels, 2);
    return true;
  }();
  (void)ready;
  const auto dir = (dsgd::fuzz::scratch() / "images").string();
  for (const char* name : {"train/a/x.png", "train/a/x.jpg"}) {
    const std::string file = dsgd::fuzz::write(std::string("images/") + name, data, size);
    dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::read_image_folder(dir); });
    dsgd::fuzz::expect_dsgd_errors_only([&] { dsgd::read_image_folder(dir, 3); });
    std::filesystem::remove(file);
  }
  return 0;
}
