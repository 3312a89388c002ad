# pykcConfig.cmake - find_package(pykc): the pykc compiler, libpykrt and
# pykc_add_module. Installed by `make install` in PREFIX/lib/cmake/pykc;
# every path is found from this file's own place, so an install moved
# elsewhere (or staged with DESTDIR) still works.
#
#   find_package(pykc REQUIRED)
#   add_executable(app main.c)
#   pykc_add_module(app kernels.pyk ARCH sm_80 sm_90)
#
# Defines:
#   pykc::pykc          the compiler (imported executable); PYKC_EXECUTABLE its path
#   pykc::pykrt         libpykrt.so (imported shared library, include dir attached)
#   pykc::pykrt_static  libpykrt.a, with what it needs (Threads, libdl)
#   pykc_add_module(TARGET FILE.pyk [ARCH sm_XX ...] [INCLUDE_DIRS dir ...]
#                   [OPTIONS pykc-option ...] [STATIC])
# See docs/build.md.
cmake_minimum_required(VERSION 3.20)

get_filename_component(_pykc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(PYKC_EXECUTABLE "${_pykc_prefix}/bin/pykc")
set(_pykc_missing "")
foreach(_pykc_file bin/pykc include/pykrt.h lib/libpykrt.so.0 lib/libpykrt.a)
  if(NOT EXISTS "${_pykc_prefix}/${_pykc_file}")
    list(APPEND _pykc_missing "${_pykc_prefix}/${_pykc_file}")
  endif()
endforeach()
if(_pykc_missing)
  set(pykc_FOUND FALSE)
  set(pykc_NOT_FOUND_MESSAGE "the pykc install lacks ${_pykc_missing}")
  return()
endif()

include(CMakeFindDependencyMacro)
find_dependency(Threads)

if(NOT TARGET pykc::pykc)
  add_executable(pykc::pykc IMPORTED)
  set_target_properties(pykc::pykc PROPERTIES IMPORTED_LOCATION "${PYKC_EXECUTABLE}")
endif()
if(NOT TARGET pykc::pykrt)
  add_library(pykc::pykrt SHARED IMPORTED)
  set_target_properties(pykc::pykrt PROPERTIES
    IMPORTED_LOCATION "${_pykc_prefix}/lib/libpykrt.so.0"
    IMPORTED_SONAME "libpykrt.so.0"
    INTERFACE_INCLUDE_DIRECTORIES "${_pykc_prefix}/include")
endif()
if(NOT TARGET pykc::pykrt_static)
  add_library(pykc::pykrt_static STATIC IMPORTED)
  set_target_properties(pykc::pykrt_static PROPERTIES
    IMPORTED_LOCATION "${_pykc_prefix}/lib/libpykrt.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_pykc_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS}")
endif()

# pykc_add_module(TARGET FILE ...): compiles FILE (relative to the current
# source directory) with `pykc --emit header` into NAME.h and with
# `pykc --emit c` (the launchers and the module of every ARCH embedded)
# into NAME.c, both under the current binary directory's pykc/TARGET/;
# adds NAME.c to TARGET, that directory to its include path and libpykrt
# (pykc::pykrt, or pykc::pykrt_static with STATIC) to its libraries.
# pykc -MD's depfiles list every .pyk FILE imports, so an edit of any of
# them regenerates both. INCLUDE_DIRS are searched for imported modules
# after FILE's own directory; OPTIONS go to pykc as they are (--sig ...).
function(pykc_add_module target file)
  cmake_parse_arguments(PARSE_ARGV 2 _pk "STATIC" "" "ARCH;INCLUDE_DIRS;OPTIONS")
  if(_pk_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pykc_add_module(${target} ${file}): unknown arguments ${_pk_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(src "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(srcdir "${src}" DIRECTORY)
  get_filename_component(stem "${src}" NAME_WE)
  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/pykc/${target}")
  set(flags -I "${srcdir}")
  foreach(dir IN LISTS _pk_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags -I "${dir}")
  endforeach()
  list(APPEND flags ${_pk_OPTIONS})
  set(archs "")
  foreach(arch IN LISTS _pk_ARCH)
    list(APPEND archs --arch ${arch})
  endforeach()
  string(REPLACE ";" " " archlist "${_pk_ARCH}")
  file(MAKE_DIRECTORY "${outdir}")
  add_custom_command(OUTPUT "${outdir}/${stem}.h"
    COMMAND "${PYKC_EXECUTABLE}" ${flags} --emit header -MD -o "${outdir}/${stem}.h" "${src}"
    DEPENDS "${src}" "${PYKC_EXECUTABLE}"
    DEPFILE "${outdir}/${stem}.h.d"
    COMMENT "pykc: ${stem}.h from ${file}"
    VERBATIM)
  add_custom_command(OUTPUT "${outdir}/${stem}.c"
    COMMAND "${PYKC_EXECUTABLE}" ${flags} ${archs} --emit c -MD -o "${outdir}/${stem}.c" "${src}"
    DEPENDS "${src}" "${PYKC_EXECUTABLE}"
    DEPFILE "${outdir}/${stem}.c.d"
    COMMENT "pykc: ${stem}.c from ${file} ${archlist}"
    VERBATIM)
  target_sources(${target} PRIVATE "${outdir}/${stem}.c" "${outdir}/${stem}.h")
  target_include_directories(${target} PRIVATE "${outdir}")
  if(_pk_STATIC)
    target_link_libraries(${target} PRIVATE pykc::pykrt_static)
  else()
    target_link_libraries(${target} PRIVATE pykc::pykrt)
  endif()
endfunction()
