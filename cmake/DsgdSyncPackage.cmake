# Run as `cmake -DSRC=python/dsgd -DDST=build/python/dsgd -P DsgdSyncPackage.cmake` (by
# cmake/DsgdPython.cmake): makes the build tree's copy of the package's Python files the source's,
# copying what changed and removing what the source no longer has, so that a file deleted from
# python/dsgd/ is not imported (or type-checked) from build/python. The generated _build_info.py
# and the compiled module stay.
cmake_minimum_required(VERSION 3.21)
file(MAKE_DIRECTORY "${DST}")
file(GLOB sources RELATIVE "${SRC}" "${SRC}/*.py" "${SRC}/*.pyi" "${SRC}/py.typed")
file(GLOB present RELATIVE "${DST}" "${DST}/*.py" "${DST}/*.pyi" "${DST}/py.typed")
foreach(name IN LISTS present)
  if(NOT name IN_LIST sources AND NOT name STREQUAL "_build_info.py")
    file(REMOVE "${DST}/${name}")
  endif()
endforeach()
foreach(name IN LISTS sources)
  file(COPY_FILE "${SRC}/${name}" "${DST}/${name}" ONLY_IF_DIFFERENT)
endforeach()
