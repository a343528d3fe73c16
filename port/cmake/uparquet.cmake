# µparquet from its sources in a CMake build: the body that the repository's
# root CMakeLists.txt (add_subdirectory, FetchContent) and port/cmake/CMakeLists.txt
# include.
#
# Targets: one OBJECT library per component (uparquet_common, _format,
# _decode, _read, _write, ... as port/sources.txt lists them, the list the
# Makefile and port/uparquet.mk read), the static library uparquet (alias
# uparquet::uparquet) made of them all, which carries the public include
# directories and the options to whatever links it, and on targets with an
# OS uparquet_posix (alias uparquet::posix): the POSIX file adapter of
# uparquet/posix.h; uparquet::fatfs and uparquet::littlefs, the adapters over
# the project's own FatFs or littlefs, when UPQ_FATFS_INCLUDE_DIRS or
# UPQ_LITTLEFS_INCLUDE_DIRS name its headers. Sources of components an option
# turns off compile to nothing.
#
# Options (cache variables), made from config.h's list of options:
#   UPQ_SET             an option set, port/config/upq-<set>.h: reader-min,
#                       writer-min, logger, gateway, everything; empty: the
#                       defaults of config.h
#   UPQ_WITH_<OPTION>   ON or OFF over the set, for every UPQ_WITH_* of
#                       config.h; empty: the set's, else config.h's
#   UPQ_<OPTION>        the other options of config.h (UPQ_CRC32_TABLE,
#                       UPQ_NO_ERRSTR, UPQ_MEM_WORDS, the limits): a value, or
#                       empty for the set's, else config.h's
#   UPQ_DEPS_LIBDIR     where the package archives are when an option needs
#                       one (LZ4, ZSTD, GZIP, BROTLI, CRYPTO): `make deps [TARGET=...]`
#                       in the repository builds them (default build/host/deps)
get_filename_component(UPQ_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(UPQ_SET "" CACHE STRING "option set (port/config/upq-<set>.h); empty: defaults")
set(UPQ_DEPS_DIR "${UPQ_ROOT}/codecs/.deps" CACHE PATH "fetched package sources (make deps)")
set(UPQ_DEPS_LIBDIR "${UPQ_ROOT}/build/host/deps" CACHE PATH "package archives (make deps)")

set(_upq_config_h "${UPQ_ROOT}/core/include/uparquet/config.h")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_upq_config_h}" "${UPQ_ROOT}/port/sources.txt")

# The options: every name config.h gives a default to.
file(STRINGS "${_upq_config_h}" _upq_opt_lines REGEX "^#ifndef UPQ_[A-Z0-9_]+$")
set(_upq_options "")
foreach(l ${_upq_opt_lines})
  string(REGEX REPLACE "^#ifndef (UPQ_[A-Z0-9_]+)$" "\\1" _upq_o "${l}")
  list(APPEND _upq_options ${_upq_o})
endforeach()

set(_upq_defs "")
if(UPQ_SET)
  set(_upq_set_h "${UPQ_ROOT}/port/config/upq-${UPQ_SET}.h")
  if(NOT EXISTS "${_upq_set_h}")
    file(GLOB _upq_sets RELATIVE "${UPQ_ROOT}/port/config" "${UPQ_ROOT}/port/config/upq-*.h")
    string(REGEX REPLACE "upq-([a-z0-9-]+)\\.h" "\\1" _upq_sets "${_upq_sets}")
    message(FATAL_ERROR "uparquet: UPQ_SET=${UPQ_SET}: no ${_upq_set_h}; the sets are ${_upq_sets}")
  endif()
  list(APPEND _upq_defs "UPQ_CONFIG_FILE=\"upq-${UPQ_SET}.h\"")
  # The set's header, then the ones it includes itself (port/config/upq_*.h,
  # after its own options): an option's first definition in them holds, as it
  # does for the compiler.
  set(_upq_set_files "${_upq_set_h}")
  file(STRINGS "${_upq_set_h}" _upq_incs REGEX "^#include \"upq_[a-z_]+\\.h\"$")
  foreach(l ${_upq_incs})
    string(REGEX REPLACE "^#include \"(upq_[a-z_]+\\.h)\"$" "\\1" _upq_i "${l}")
    list(APPEND _upq_set_files "${UPQ_ROOT}/port/config/${_upq_i}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_upq_set_files})
endif()
foreach(o ${_upq_options})
  if(o MATCHES "^UPQ_WITH_")
    set(${o} "" CACHE STRING "ON/OFF over the option set; empty: the set's, else config.h's")
    set_property(CACHE ${o} PROPERTY STRINGS "" ON OFF)
  else()
    set(${o} "" CACHE STRING "a value over the option set; empty: the set's, else config.h's")
  endif()
  # The value the build has where CMake needs to know it (the packages): ours,
  # else the set's, else config.h's plain default.
  set(_upq_on_${o} 0)
  if(NOT "${${o}}" STREQUAL "")
    if("${${o}}" MATCHES "^(ON|on|On|YES|yes|TRUE|true|Y|y)$")
      set(_upq_v 1)
    elseif("${${o}}" MATCHES "^(OFF|off|Off|NO|no|FALSE|false|N|n)$")
      set(_upq_v 0)
    else()
      set(_upq_v "${${o}}")
    endif()
    list(APPEND _upq_defs "${o}=${_upq_v}")
    set(_upq_on_${o} "${_upq_v}")
  elseif(UPQ_SET AND EXISTS "${_upq_set_h}")
    foreach(_upq_f ${_upq_set_files})
      if(NOT _upq_line)
        file(STRINGS "${_upq_f}" _upq_line REGEX "^#define ${o} ")
      endif()
    endforeach()
    if(_upq_line)
      string(REGEX REPLACE "^#define ${o} (.*)$" "\\1" _upq_v "${_upq_line}")
      set(_upq_on_${o} "${_upq_v}")
    endif()
  endif()
  if("${${o}}" STREQUAL "" AND NOT _upq_line)
    file(STRINGS "${_upq_config_h}" _upq_dline REGEX "^#define ${o} [01]$")
    if(_upq_dline)
      string(REGEX REPLACE "^#define ${o} ([01])$" "\\1" _upq_on_${o} "${_upq_dline}")
    endif()
  endif()
  unset(_upq_line)
  unset(_upq_dline)
endforeach()

# The packages, as codecs/codecs.mk builds them (DEPS_DEFS there).
set(_upq_pkgs "")
set(_upq_pkg_defs "")
set(_upq_pkg_inc "")
if(_upq_on_UPQ_WITH_LZ4)
  list(APPEND _upq_pkgs liblz4.a)
  list(APPEND _upq_pkg_defs LZ4_MEMORY_USAGE=12)
  list(APPEND _upq_pkg_inc "${UPQ_DEPS_DIR}/lz4/lib")
endif()
if(_upq_on_UPQ_WITH_ZSTD)
  list(APPEND _upq_pkgs libzstd.a)
  list(APPEND _upq_pkg_inc "${UPQ_DEPS_DIR}/zstd/lib")
endif()
if(_upq_on_UPQ_WITH_CRYPTO)
  list(APPEND _upq_pkgs libmbedcrypto.a)
  list(APPEND _upq_pkg_defs "MBEDTLS_CONFIG_FILE=\"upq_mbedtls_config.h\"")
  list(APPEND _upq_pkg_inc "${UPQ_DEPS_DIR}/mbedtls/include")
endif()
if(_upq_on_UPQ_WITH_GZIP)
  list(APPEND _upq_pkgs libz.a)
  list(APPEND _upq_pkg_defs Z_SOLO Z_PREFIX)
  list(APPEND _upq_pkg_inc "${UPQ_DEPS_DIR}/zlib")
endif()
# libdeflate: headers only, its decompressor is compiled inside codecs/upq_gzip.c
if(_upq_on_UPQ_WITH_LIBDEFLATE)
  list(APPEND _upq_pkg_inc "${UPQ_DEPS_DIR}/libdeflate")
endif()
if(_upq_on_UPQ_WITH_BROTLI)
  list(APPEND _upq_pkgs libbrotlidec.a)
  list(APPEND _upq_pkg_inc "${UPQ_DEPS_DIR}/brotli/c/include" "${UPQ_DEPS_DIR}/brotli/c")
endif()

# The one source list.
file(STRINGS "${UPQ_ROOT}/port/sources.txt" _upq_lines REGEX "^[a-z0-9]+[ \t]+[^ \t]+\\.c$")
# The components in the list's order (its first column).
set(_upq_components "")
foreach(l ${_upq_lines})
  if(l MATCHES "^([a-z0-9]+)[ \t]")
    list(APPEND _upq_components ${CMAKE_MATCH_1})
  endif()
endforeach()
list(REMOVE_DUPLICATES _upq_components)
set(_upq_objects "")
foreach(c ${_upq_components})
  set(_upq_src "")
  foreach(l ${_upq_lines})
    if(l MATCHES "^${c}[ \t]+([^ \t]+)$")
      list(APPEND _upq_src "${UPQ_ROOT}/${CMAKE_MATCH_1}")
    endif()
  endforeach()
  add_library(uparquet_${c} OBJECT ${_upq_src})
  set_target_properties(uparquet_${c} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
  target_include_directories(uparquet_${c} PRIVATE "${UPQ_ROOT}/core/include" "${UPQ_ROOT}/port"
                             "${UPQ_ROOT}/port/config" "${UPQ_ROOT}/core" "${UPQ_ROOT}/codecs")
  target_include_directories(uparquet_${c} SYSTEM PRIVATE ${_upq_pkg_inc})
  target_compile_definitions(uparquet_${c} PRIVATE ${_upq_defs} ${_upq_pkg_defs})
  # The library calls no libc: keep the compiler from calling memcpy/memset
  # for it (gcc's loop-idiom pass too; clang does not need, nor know, the flag).
  target_compile_options(uparquet_${c} PRIVATE -ffreestanding -fno-builtin
                         $<$<C_COMPILER_ID:GNU>:-fno-tree-loop-distribute-patterns>)
  list(APPEND _upq_objects $<TARGET_OBJECTS:uparquet_${c}>)
endforeach()

add_library(uparquet STATIC ${_upq_objects})
add_library(uparquet::uparquet ALIAS uparquet)
target_include_directories(uparquet PUBLIC "${UPQ_ROOT}/core/include" "${UPQ_ROOT}/port")
if(UPQ_SET)
  target_include_directories(uparquet PUBLIC "${UPQ_ROOT}/port/config")
endif()
target_compile_definitions(uparquet PUBLIC ${_upq_defs})

# Each package archive calls back into the library (its memcpy is
# upq_memcpy): declared as a cycle, which CMake links by repeating the group.
foreach(p ${_upq_pkgs})
  if(NOT EXISTS "${UPQ_DEPS_LIBDIR}/${p}")
    message(FATAL_ERROR "uparquet: the options need ${UPQ_DEPS_LIBDIR}/${p}: run `make deps` "
                        "in ${UPQ_ROOT} (TARGET=... for a cross build), or set UPQ_DEPS_LIBDIR")
  endif()
  string(REGEX REPLACE "^lib(.*)\\.a$" "uparquet_pkg_\\1" _upq_t "${p}")
  add_library(${_upq_t} STATIC IMPORTED)
  set_target_properties(${_upq_t} PROPERTIES IMPORTED_LOCATION "${UPQ_DEPS_LIBDIR}/${p}"
                        INTERFACE_LINK_LIBRARIES uparquet)
  target_link_libraries(uparquet PUBLIC ${_upq_t})
endforeach()

# The FatFs and littlefs adapters (upq_fatfs.h, upq_littlefs.h), compiled
# against the project's own FatFs or littlefs: give the include directories
# of its ff.h and ffconf.h, or of its lfs.h and lfs_util.h.
set(UPQ_FATFS_INCLUDE_DIRS "" CACHE STRING "FatFs' include directories: builds uparquet::fatfs")
set(UPQ_LITTLEFS_INCLUDE_DIRS "" CACHE STRING "littlefs' include directories: builds uparquet::littlefs")
foreach(_upq_fs fatfs littlefs)
  string(TOUPPER ${_upq_fs} _upq_FS)
  if(UPQ_${_upq_FS}_INCLUDE_DIRS)
    add_library(uparquet_${_upq_fs} STATIC "${UPQ_ROOT}/port/adapters/${_upq_fs}/upq_${_upq_fs}.c")
    add_library(uparquet::${_upq_fs} ALIAS uparquet_${_upq_fs})
    set_target_properties(uparquet_${_upq_fs} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
    target_include_directories(uparquet_${_upq_fs} PUBLIC "${UPQ_ROOT}/port/adapters/${_upq_fs}"
                               ${UPQ_${_upq_FS}_INCLUDE_DIRS})
    if(_upq_fs STREQUAL "littlefs")
      # checkpoint mode on littlefs goes through the append-only sink (upq_littlefs_append)
      target_sources(uparquet_littlefs PRIVATE "${UPQ_ROOT}/port/adapters/append/upq_append.c")
      target_include_directories(uparquet_littlefs PUBLIC "${UPQ_ROOT}/port/adapters/append")
    endif()
    target_link_libraries(uparquet_${_upq_fs} PUBLIC uparquet)
  endif()
endforeach()

# The POSIX file adapter (not library code: it calls the OS), where there is one.
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Generic" AND NOT CMAKE_SYSTEM_NAME STREQUAL "Zephyr")
  add_library(uparquet_posix STATIC "${UPQ_ROOT}/port/adapters/posix/io_posix.c")
  add_library(uparquet::posix ALIAS uparquet_posix)
  set_target_properties(uparquet_posix PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
  target_link_libraries(uparquet_posix PUBLIC uparquet)
endif()
