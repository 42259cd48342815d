// Which library serves dsgd's calls into the C++ standard library. PyTorch's wheels carry a copy
// of part of libstdc++ (all of std::filesystem) inside libtorch.so, exported; dsgd's binaries
// name libstdc++ first among their libraries (CMakeLists.txt) so that the system's libstdc++, one
// coherent version, serves every such call. Against Debian's LibTorch, which carries no copy, this
// holds without the ordering; against a wheel's it fails without it.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

// The file of the library that holds the function at `address`, or "" for the executable itself
// (where a non-PIE executable's function pointers point: its own PLT).
std::string library_holding(void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "an unnamed object";
  Dl_info program{};
  const std::string name = info.dli_fname;
  if (dladdr(reinterpret_cast<void*>(&library_holding), &program) != 0 &&
      program.dli_fbase == info.dli_fbase) {
    return "";
  }
  return name;
}

TEST(Linking, TheStandardLibraryServesDsgdNotACopyInsideLibTorch) {
  // remove_all, which the tests that crashed against PyTorch 2.11 on the GPU machine had in
  // common (removing a folder with files in it), and status, behind every exists() check; a
  // function pointer is where this binary's calls go.
  using RemoveAll = std::uintmax_t (*)(const fs::path&);
  using Status = fs::file_status (*)(const fs::path&);
  const RemoveAll remove_all = &fs::remove_all;
  const Status status = &fs::status;
  for (void* address : {reinterpret_cast<void*>(remove_all), reinterpret_cast<void*>(status)}) {
    const std::string library = library_holding(address);
    if (library.empty()) GTEST_SKIP() << "a non-PIE executable: its function pointers are its own";
    EXPECT_NE(library.find("libstdc++.so"), std::string::npos) << "served by " << library;
  }
}

}  // namespace
