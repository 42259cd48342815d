# The Python package `dsgd` (python/): a pybind11 module, dsgd._core, linked against dsgd_lib and
# so against the LibTorch this build uses, which must be the one inside the torch that Python
# imports (one LibTorch per process). Two ways in, one description:
# - `pip install .` (pyproject.toml, scikit-build-core): SKBUILD is set, Python is the one pip
#   runs, and the module and the dsgd executable are installed into the wheel;
# - this build tree (scripts/build.sh): the module is one more target, built into
#   build/python/dsgd/ beside a copy of the package's Python files, for the tests
#   (python/tests, run by CTest) and for PYTHONPATH=build/python.
# Outside pip, the interpreter is DSGD_PYTHON, else the first of DSGD_TORCH_PYTHON,
# /usr/bin/python3 and python3 whose torch is this LibTorch's version; without one, or without
# pybind11, the package is skipped with a message (DSGD_BUILD_PYTHON=ON makes that an error).

set(DSGD_BUILD_PYTHON AUTO CACHE STRING "Build the Python package (AUTO: when a matching torch and pybind11 are found)")
set_property(CACHE DSGD_BUILD_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(DSGD_PYTHON "" CACHE FILEPATH "Python whose torch is this build's LibTorch (empty: search)")

# The version of the LibTorch linked, as "major.minor.patch".
function(dsgd_torch_version out)
  set(version "${Torch_VERSION}")
  if(NOT version)
    find_file(_dsgd_version_h torch/version.h PATHS ${TORCH_INCLUDE_DIRS} NO_DEFAULT_PATH)
    file(STRINGS "${_dsgd_version_h}" _dsgd_line REGEX "define TORCH_VERSION_(MAJOR|MINOR|PATCH) ")
    string(REGEX MATCHALL "[0-9]+" version "${_dsgd_line}")
    string(REPLACE ";" "." version "${version}")
  endif()
  string(REGEX MATCH "^[0-9]+\\.[0-9]+\\.[0-9]+" version "${version}")
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

# The torch version `python` imports, as "major.minor.patch", or "" when it has none.
function(dsgd_python_torch_version python out)
  execute_process(COMMAND "${python}" -c "import torch, re; print(re.match(r'\\d+\\.\\d+\\.\\d+', torch.__version__).group(0))"
                  OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(version "")
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

if(NOT DSGD_BUILD_PYTHON STREQUAL "OFF")
  dsgd_torch_version(_dsgd_libtorch_version)
  set(_dsgd_python "")
  if(SKBUILD)
    set(_dsgd_python "${Python_EXECUTABLE}")
  elseif(DSGD_PYTHON)
    set(_dsgd_python "${DSGD_PYTHON}")
  else()
    find_program(_dsgd_path_python python3)
    foreach(_dsgd_candidate "${DSGD_TORCH_PYTHON}" /usr/bin/python3 "${_dsgd_path_python}")
      if(_dsgd_candidate AND EXISTS "${_dsgd_candidate}")
        dsgd_python_torch_version("${_dsgd_candidate}" _dsgd_candidate_version)
        if(_dsgd_candidate_version STREQUAL _dsgd_libtorch_version)
          set(_dsgd_python "${_dsgd_candidate}")
          break()
        endif()
      endif()
    endforeach()
  endif()
  set(_dsgd_python_problem "")
  if(NOT _dsgd_python)
    set(_dsgd_python_problem "no Python whose torch is LibTorch ${_dsgd_libtorch_version} (set DSGD_PYTHON; Debian: apt-get install python3-torch)")
  else()
    dsgd_python_torch_version("${_dsgd_python}" _dsgd_python_torch)
    if(NOT _dsgd_python_torch STREQUAL _dsgd_libtorch_version)
      set(_dsgd_python_problem "${_dsgd_python} imports torch '${_dsgd_python_torch}', but this build links LibTorch ${_dsgd_libtorch_version}: install dsgd with the Python whose torch this is")
    endif()
  endif()
  if(NOT _dsgd_python_problem)
    set(Python_EXECUTABLE "${_dsgd_python}")
    find_package(Python COMPONENTS Interpreter Development.Module)
    if(NOT Python_FOUND)
      set(_dsgd_python_problem "no headers for ${_dsgd_python} (Debian: apt-get install python3-dev)")
    endif()
  endif()
  if(NOT _dsgd_python_problem)
    find_package(pybind11 CONFIG QUIET)
    if(NOT pybind11_FOUND)
      execute_process(COMMAND "${Python_EXECUTABLE}" -c "import pybind11; print(pybind11.get_cmake_dir())"
                      OUTPUT_VARIABLE _dsgd_pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_dsgd_pybind11_dir)
        find_package(pybind11 CONFIG QUIET PATHS "${_dsgd_pybind11_dir}" NO_DEFAULT_PATH)
      endif()
    endif()
    if(NOT pybind11_FOUND)
      set(_dsgd_python_problem "no pybind11 (Debian: apt-get install pybind11-dev; pip: pip install pybind11)")
    endif()
  endif()

  if(_dsgd_python_problem)
    if(DSGD_BUILD_PYTHON STREQUAL "ON" OR SKBUILD)
      message(FATAL_ERROR "the Python package cannot be built: ${_dsgd_python_problem}")
    endif()
    message(STATUS "dsgd: Python package skipped: ${_dsgd_python_problem}")
  else()
    message(STATUS "dsgd: Python package for ${Python_EXECUTABLE} (torch ${_dsgd_libtorch_version})")
    set(DSGD_PYTHON_PACKAGE_DIR "${CMAKE_BINARY_DIR}/python/dsgd")
    # NO_EXTRAS: no link-time optimisation of dsgd_lib into the module (minutes, for nothing).
    pybind11_add_module(dsgd_python MODULE NO_EXTRAS
                        ${PROJECT_SOURCE_DIR}/python/bindings/dsgd_module.cpp
                        ${PROJECT_SOURCE_DIR}/python/bindings/boundary.cpp)
    set_target_properties(dsgd_python PROPERTIES OUTPUT_NAME _core
                          LIBRARY_OUTPUT_DIRECTORY "${DSGD_PYTHON_PACKAGE_DIR}")
    target_link_libraries(dsgd_python PRIVATE dsgd_lib)
    # What the package checks before it loads _core: the torch it was built against.
    file(GENERATE OUTPUT "${DSGD_PYTHON_PACKAGE_DIR}/_build_info.py" CONTENT
"# Written by the build (cmake/DsgdPython.cmake): what dsgd._core was built against.
version = \"${PROJECT_VERSION}\"
torch_version = \"${_dsgd_libtorch_version}\"
python = \"${Python_EXECUTABLE}\"
executable = \"$<TARGET_FILE:dsgd>\"
")
    # The package's Python files beside the module, so that build/python is importable.
    file(GLOB _dsgd_python_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/dsgd/*.py
         ${PROJECT_SOURCE_DIR}/python/dsgd/*.pyi ${PROJECT_SOURCE_DIR}/python/dsgd/py.typed)
    add_custom_target(dsgd_python_sources ALL
                      COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR}/python/dsgd
                              -DDST=${DSGD_PYTHON_PACKAGE_DIR}
                              -P ${PROJECT_SOURCE_DIR}/cmake/DsgdSyncPackage.cmake
                      DEPENDS ${_dsgd_python_sources}
                      COMMENT "Copying the Python package's sources")
    add_dependencies(dsgd_python dsgd_python_sources dsgd)
    if(SKBUILD)
      set_target_properties(dsgd_python PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
      install(TARGETS dsgd_python LIBRARY DESTINATION dsgd)
      install(FILES "${DSGD_PYTHON_PACKAGE_DIR}/_build_info.py" DESTINATION dsgd)
      install(TARGETS dsgd RUNTIME DESTINATION "${SKBUILD_SCRIPTS_DIR}")
    endif()
    set(DSGD_PYTHON_TESTS_PYTHON "${Python_EXECUTABLE}")
  endif()
endif()
