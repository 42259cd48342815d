# find_package(Torch) for both LibTorch generations dsgd builds against: Debian's 1.13 (the default
# build, where nothing below changes anything) and the 2.x inside a pip-installed PyTorch or an
# unpacked official LibTorch (scripts/build-torch.sh, scripts/gpu-check.sh).
#
# What LibTorch 2.x needs here, and why:
# - A CUDA build's TorchConfig includes Caffe2's cuda.cmake, which looks for a CUDA toolkit (nvcc,
#   enable_language(CUDA)) and fails without one. dsgd compiles no CUDA code: libtorch_cuda.so
#   brings the CUDA runtime it was built with (the wheel's nvidia-* packages, through its RPATH).
#   DSGD_CUDA_TOOLKIT=AUTO lets TorchConfig use an installed toolkit when nvcc is found (PATH,
#   $CUDACXX, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda) and is 12.6 or newer; otherwise (and with
#   OFF) torch::cudart, cuda.cmake's include guard, is defined empty, so that TorchConfig skips the
#   toolkit and configuration needs neither nvcc nor a GPU.
# - Either way dsgd links no CUDA library itself: the toolkit's runtime (13.0 here) must not be
#   loaded in place of the one libtorch_cuda.so was built with (13.2 for the wheel).
# - TorchConfig finds c10 with find_library(... PATHS <prefix>/lib), which searches the system's
#   folders first: with Debian's libtorch-dev installed it would link Debian's libc10.so 1.13
#   into a 2.x build. Libraries found outside the LibTorch's own folder are replaced by its own.
# - LibTorch 2.x headers may require C++20 (2.15's do: "#error C++20 or later compatible compiler
#   is required"); then this build, and only it, compiles as C++20. The code stays C++17.
# - LibTorch 2.x ships {fmt} headers in its include folder, which comes before the system's on
#   every command line; dsgd then uses that fmt, header-only (DSGD_FMT_FROM_TORCH), so that the
#   headers it compiles against and the code it links agree.

set(DSGD_CUDA_TOOLKIT AUTO CACHE STRING
    "CUDA-enabled LibTorch only: let its CMake use an installed CUDA toolkit (AUTO: when nvcc 12.6+ is found; OFF: never, dsgd compiles no CUDA code)")
set_property(CACHE DSGD_CUDA_TOOLKIT PROPERTY STRINGS AUTO ON OFF)

# An explicit Torch_DIR names the LibTorch: search its prefix first for its libraries too.
if(Torch_DIR AND EXISTS "${Torch_DIR}/TorchConfig.cmake")
  get_filename_component(_dsgd_torch_prefix "${Torch_DIR}/../../.." ABSOLUTE)
  if(EXISTS "${_dsgd_torch_prefix}/lib")
    list(PREPEND CMAKE_PREFIX_PATH "${_dsgd_torch_prefix}")
  endif()
endif()

set(_dsgd_cuda_toolkit OFF)
if(NOT DSGD_CUDA_TOOLKIT STREQUAL "OFF" AND NOT TARGET torch::cudart)
  set(_dsgd_nvcc_hints)
  foreach(_dsgd_root "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" "/usr/local/cuda")
    if(_dsgd_root)
      list(APPEND _dsgd_nvcc_hints "${_dsgd_root}/bin")
    endif()
  endforeach()
  if(CMAKE_CUDA_COMPILER)
    set(DSGD_NVCC "${CMAKE_CUDA_COMPILER}")
  elseif(DEFINED ENV{CUDACXX})
    set(DSGD_NVCC "$ENV{CUDACXX}")
  else()
    find_program(DSGD_NVCC nvcc HINTS ${_dsgd_nvcc_hints})
  endif()
  if(DSGD_NVCC AND EXISTS "${DSGD_NVCC}")
    execute_process(COMMAND "${DSGD_NVCC}" --version OUTPUT_VARIABLE _dsgd_nvcc_out
                    ERROR_QUIET RESULT_VARIABLE _dsgd_nvcc_rc)
    string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _dsgd_nvcc_match "${_dsgd_nvcc_out}")
    set(_dsgd_nvcc_version "${CMAKE_MATCH_1}")
    if(_dsgd_nvcc_rc EQUAL 0 AND _dsgd_nvcc_version VERSION_GREATER_EQUAL 12.6)
      set(_dsgd_cuda_toolkit ON)
    elseif(DSGD_CUDA_TOOLKIT STREQUAL "ON")
      message(FATAL_ERROR "DSGD_CUDA_TOOLKIT=ON, but ${DSGD_NVCC} is not a CUDA 12.6+ nvcc")
    endif()
  elseif(DSGD_CUDA_TOOLKIT STREQUAL "ON")
    message(FATAL_ERROR "DSGD_CUDA_TOOLKIT=ON, but no nvcc was found: set CUDA_HOME or CMAKE_CUDA_COMPILER")
  endif()
endif()

if(_dsgd_cuda_toolkit)
  get_filename_component(_dsgd_cuda_root "${DSGD_NVCC}" DIRECTORY)
  get_filename_component(_dsgd_cuda_root "${_dsgd_cuda_root}" DIRECTORY)
  set(CMAKE_CUDA_COMPILER "${DSGD_NVCC}")
  set(CUDA_TOOLKIT_ROOT_DIR "${_dsgd_cuda_root}" CACHE PATH "CUDA toolkit (for LibTorch's CMake)")
  set(CUDAToolkit_ROOT "${_dsgd_cuda_root}")
  # Only nvcc flags depend on it, and dsgd has no CUDA sources: no GPU detection at configure.
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(TORCH_CUDA_ARCH_LIST "8.0;9.0")
  endif()
elseif(NOT TARGET torch::cudart)
  add_library(torch::cudart INTERFACE IMPORTED)
endif()

find_package(Torch REQUIRED)

if(TARGET torch_cuda)
  if(_dsgd_cuda_toolkit)
    message(STATUS "dsgd: LibTorch's CMake used the CUDA toolkit at ${_dsgd_cuda_root} (nvcc ${_dsgd_nvcc_version})")
  else()
    message(STATUS "dsgd: CUDA-enabled LibTorch, configured without a CUDA toolkit")
  endif()
  # dsgd links no CUDA library itself; libtorch_cuda.so loads its own.
  set_property(TARGET torch::cudart PROPERTY INTERFACE_LINK_LIBRARIES "")
  if(CUDA_NVRTC_LIB)
    list(REMOVE_ITEM TORCH_LIBRARIES "${CUDA_NVRTC_LIB}")
  endif()
endif()

# Libraries TorchConfig found outside the LibTorch's own folder (Debian's, see above).
get_filename_component(_dsgd_torch_lib "${TORCH_INSTALL_PREFIX}/lib" ABSOLUTE)
set(_dsgd_torch_libraries)
foreach(_dsgd_item IN LISTS TORCH_LIBRARIES)
  string(FIND "${_dsgd_item}" "${TORCH_INSTALL_PREFIX}/" _dsgd_at)
  if(IS_ABSOLUTE "${_dsgd_item}" AND NOT _dsgd_at EQUAL 0)
    get_filename_component(_dsgd_name "${_dsgd_item}" NAME)
    if(EXISTS "${_dsgd_torch_lib}/${_dsgd_name}")
      message(STATUS "dsgd: linking ${_dsgd_torch_lib}/${_dsgd_name}, not ${_dsgd_item}")
      set(_dsgd_item "${_dsgd_torch_lib}/${_dsgd_name}")
    endif()
  endif()
  list(APPEND _dsgd_torch_libraries "${_dsgd_item}")
endforeach()
set(TORCH_LIBRARIES ${_dsgd_torch_libraries})

# The C++ standard the LibTorch's headers require.
get_target_property(_dsgd_torch_features torch INTERFACE_COMPILE_FEATURES)
set(_dsgd_needs_cxx20 OFF)
if(_dsgd_torch_features AND "cxx_std_20" IN_LIST _dsgd_torch_features)
  set(_dsgd_needs_cxx20 ON)
elseif(EXISTS "${TORCH_INSTALL_PREFIX}/include/ATen/ATen.h")
  file(STRINGS "${TORCH_INSTALL_PREFIX}/include/ATen/ATen.h" _dsgd_cxx20_error REGEX "C\\+\\+20 or later")
  if(_dsgd_cxx20_error)
    set(_dsgd_needs_cxx20 ON)
  endif()
endif()
if(_dsgd_needs_cxx20 AND CMAKE_CXX_STANDARD LESS 20)
  message(STATUS "dsgd: LibTorch ${Torch_VERSION} needs C++20: this build compiles as C++20")
  set(CMAKE_CXX_STANDARD 20)
endif()

# LibTorch's own {fmt}, when it ships one outside the system's include folders.
get_filename_component(_dsgd_torch_include "${TORCH_INSTALL_PREFIX}/include" ABSOLUTE)
if(NOT TARGET fmt::fmt AND EXISTS "${_dsgd_torch_include}/fmt/format.h"
   AND NOT _dsgd_torch_include IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  set(_dsgd_fmt_version)
  foreach(_dsgd_header base.h core.h)
    if(NOT _dsgd_fmt_version AND EXISTS "${_dsgd_torch_include}/fmt/${_dsgd_header}")
      file(STRINGS "${_dsgd_torch_include}/fmt/${_dsgd_header}" _dsgd_fmt_version
           REGEX "define FMT_VERSION ")
    endif()
  endforeach()
  string(REGEX MATCH "[0-9]+" _dsgd_fmt_version "${_dsgd_fmt_version}")
  message(STATUS "dsgd: {fmt} ${_dsgd_fmt_version} from LibTorch's headers, header-only")
  add_library(dsgd_fmt_from_torch INTERFACE)
  target_include_directories(dsgd_fmt_from_torch SYSTEM INTERFACE "${_dsgd_torch_include}")
  target_compile_definitions(dsgd_fmt_from_torch INTERFACE FMT_HEADER_ONLY=1)
  add_library(fmt::fmt ALIAS dsgd_fmt_from_torch)
  set(DSGD_FMT_FROM_TORCH ON)
endif()
