# dsgd's dependencies from a folder made by scripts/prepare-offline.sh (this file is copied into
# it), for a machine without Debian's packages and without network: CMakeLists.txt includes it
# when DSGD_OFFLINE_DEPS names the folder, and then looks none of these targets up on the system.
#   header-only: tomlplusplus::tomlplusplus, CLI11::CLI11, nlohmann_json::nlohmann_json,
#                fmt::fmt (unless LibTorch's own {fmt} is used; cmake/DsgdTorch.cmake),
#                dsgd_offline_headers (xtensor and xtl, for the .npy header parser)
#   from sources: ZLIB::ZLIB, PkgConfig::STB (stb_image, stb_image_resize, stb_image_write),
#                GTest::gtest and GTest::gtest_main, benchmark::benchmark
# LibTorch and MPI are not in the folder (build with -DDSGD_WITH_MPI=OFF).
set(_dsgd_off "${CMAKE_CURRENT_LIST_DIR}")
if(NOT EXISTS "${_dsgd_off}/MANIFEST")
  message(FATAL_ERROR "DSGD_OFFLINE_DEPS=${_dsgd_off} is not a folder made by scripts/prepare-offline.sh")
endif()
message(STATUS "dsgd: dependencies from ${_dsgd_off} (scripts/prepare-offline.sh), none from the system")
enable_language(C)  # zlib and stb's implementations
find_package(Threads REQUIRED)

add_library(dsgd_offline_headers INTERFACE)
target_include_directories(dsgd_offline_headers SYSTEM INTERFACE "${_dsgd_off}/include")

add_library(dsgd_offline_toml INTERFACE)
target_link_libraries(dsgd_offline_toml INTERFACE dsgd_offline_headers)
target_compile_definitions(dsgd_offline_toml INTERFACE TOML_HEADER_ONLY=1)
add_library(tomlplusplus::tomlplusplus ALIAS dsgd_offline_toml)
add_library(CLI11::CLI11 ALIAS dsgd_offline_headers)
add_library(nlohmann_json::nlohmann_json ALIAS dsgd_offline_headers)

if(NOT TARGET fmt::fmt)
  add_library(dsgd_offline_fmt INTERFACE)
  target_include_directories(dsgd_offline_fmt SYSTEM INTERFACE "${_dsgd_off}/fmt/include")
  target_compile_definitions(dsgd_offline_fmt INTERFACE FMT_HEADER_ONLY=1)
  add_library(fmt::fmt ALIAS dsgd_offline_fmt)
endif()

# zlib 1.2.x: old-style (K&R) definitions, hence C99 with GNU extensions.
file(GLOB _dsgd_zlib_sources "${_dsgd_off}/zlib/*.c")
add_library(dsgd_offline_zlib STATIC ${_dsgd_zlib_sources})
set_target_properties(dsgd_offline_zlib PROPERTIES C_STANDARD 99 C_EXTENSIONS ON
                                                   POSITION_INDEPENDENT_CODE ON)
target_compile_definitions(dsgd_offline_zlib PRIVATE HAVE_UNISTD_H _LARGEFILE64_SOURCE=1)
target_compile_options(dsgd_offline_zlib PRIVATE -w)
target_include_directories(dsgd_offline_zlib SYSTEM PUBLIC "${_dsgd_off}/zlib")
add_library(ZLIB::ZLIB ALIAS dsgd_offline_zlib)

# stb: headers under include/stb/, their implementations compiled once here.
add_library(dsgd_offline_stb STATIC "${_dsgd_off}/stb/stb_implementations.c")
target_compile_options(dsgd_offline_stb PRIVATE -w)
set_target_properties(dsgd_offline_stb PROPERTIES POSITION_INDEPENDENT_CODE ON)  # in the Python module too
target_include_directories(dsgd_offline_stb SYSTEM PUBLIC "${_dsgd_off}/include"
                                                          "${_dsgd_off}/include/stb")
target_link_libraries(dsgd_offline_stb PRIVATE m)
add_library(PkgConfig::STB ALIAS dsgd_offline_stb)

# GoogleTest (googletest/ of its sources, without gmock).
add_library(dsgd_offline_gtest STATIC "${_dsgd_off}/googletest/src/gtest-all.cc")
target_include_directories(dsgd_offline_gtest SYSTEM PUBLIC "${_dsgd_off}/googletest/include")
target_include_directories(dsgd_offline_gtest PRIVATE "${_dsgd_off}/googletest")
target_compile_options(dsgd_offline_gtest PRIVATE -w)
target_link_libraries(dsgd_offline_gtest PUBLIC Threads::Threads)
add_library(dsgd_offline_gtest_main STATIC "${_dsgd_off}/googletest/src/gtest_main.cc")
target_link_libraries(dsgd_offline_gtest_main PUBLIC dsgd_offline_gtest)
target_compile_options(dsgd_offline_gtest_main PRIVATE -w)
add_library(GTest::gtest ALIAS dsgd_offline_gtest)
add_library(GTest::gtest_main ALIAS dsgd_offline_gtest_main)

# Google Benchmark (its include/ and src/), static, with the standard library's regex.
file(GLOB _dsgd_benchmark_sources "${_dsgd_off}/benchmark/src/*.cc")
list(FILTER _dsgd_benchmark_sources EXCLUDE REGEX ".*/benchmark_main\\.cc$")
add_library(dsgd_offline_benchmark STATIC ${_dsgd_benchmark_sources})
target_include_directories(dsgd_offline_benchmark SYSTEM PUBLIC "${_dsgd_off}/benchmark/include")
target_include_directories(dsgd_offline_benchmark PRIVATE "${_dsgd_off}/benchmark/src")
target_compile_definitions(dsgd_offline_benchmark PUBLIC BENCHMARK_STATIC_DEFINE
                           PRIVATE HAVE_STD_REGEX HAVE_STEADY_CLOCK)
target_compile_options(dsgd_offline_benchmark PRIVATE -w)
target_link_libraries(dsgd_offline_benchmark PUBLIC Threads::Threads)
add_library(benchmark::benchmark ALIAS dsgd_offline_benchmark)
