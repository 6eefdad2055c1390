# Cross-compiling for macOS from Linux with Zig's clang, macOS libc headers and libc++
# (scripts/macos.sh installs Zig from cmake/macos/package.json and builds the libraries):
#   cmake -S . -B DIR -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/zig-macos.cmake \
#     -DWAFER_ZIG=/path/to/zig -DWAFER_MACOS_ARCH=aarch64|x86_64 -DWAFER_MACOS_DEPS=PREFIX \
#     [-DWAFER_ZIG_CACHE=DIR]
# PREFIX holds what macOS itself does not provide to this toolchain: libuv built for the
# target, the header-only libraries' headers and CMake files, and link stubs for the system
# libraries Apple's SDK would describe (cmake/macos/*.tbd). On a Mac none of this is used:
# Apple's compiler and SDK build wafer without a toolchain file.
set(CMAKE_SYSTEM_NAME Darwin)
# Passed on to CMake's compiler checks, which read this file again in their own projects.
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WAFER_ZIG WAFER_ZIG_CACHE WAFER_MACOS_ARCH WAFER_MACOS_DEPS)
if(NOT WAFER_ZIG OR NOT WAFER_MACOS_ARCH OR NOT WAFER_MACOS_DEPS)
  message(FATAL_ERROR "zig-macos.cmake needs WAFER_ZIG, WAFER_MACOS_ARCH (aarch64 or x86_64) and WAFER_MACOS_DEPS")
endif()
if(WAFER_MACOS_ARCH STREQUAL "aarch64")
  set(CMAKE_SYSTEM_PROCESSOR arm64)
else()
  set(CMAKE_SYSTEM_PROCESSOR x86_64)
endif()

# One wrapper per tool and target next to Zig (CMake wants a single program per compiler).
# Zig's cache (WAFER_ZIG_CACHE, default beside Zig) keeps the libc++ it builds once per
# target, for every build tree.
get_filename_component(zig_dir "${WAFER_ZIG}" DIRECTORY)
if(NOT WAFER_ZIG_CACHE)
  set(WAFER_ZIG_CACHE "${zig_dir}/cache")
endif()
set(wrappers "${zig_dir}/wafer-wrappers")
# Zig takes a CPU model and its features where clang takes an architecture version: the
# compiler wrappers turn -march=armv8.N-a+FEATURES (the NEON dot-product kernels' flag) into
# -mcpu=generic+v8_Na+FEATURES.
foreach(tool cc c++ ar ranlib)
  set(body "exec \"${WAFER_ZIG}\" ${tool} \"\$@\"")
  if(tool MATCHES "^c")
    set(body [=[
for a do
  shift
  case $a in
    -march=armv8.*-a*)
      v=${a#-march=armv8.}
      a="-mcpu=generic+v8_${v%%-a*}a${v#*-a}" ;;
  esac
  set -- "$@" "$a"
done
]=])
    string(APPEND body "exec \"${WAFER_ZIG}\" ${tool} -target ${WAFER_MACOS_ARCH}-macos \"\$@\"")
  endif()
  file(CONFIGURE OUTPUT "${wrappers}/${WAFER_MACOS_ARCH}-macos-${tool}" @ONLY CONTENT
"#!/bin/sh
export ZIG_GLOBAL_CACHE_DIR=\"\${ZIG_GLOBAL_CACHE_DIR:-${WAFER_ZIG_CACHE}}\"
export ZIG_LOCAL_CACHE_DIR=\"\${ZIG_LOCAL_CACHE_DIR:-\$ZIG_GLOBAL_CACHE_DIR}\"
${body}
")
  file(CHMOD "${wrappers}/${WAFER_MACOS_ARCH}-macos-${tool}" PERMISSIONS
       OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CMAKE_C_COMPILER "${wrappers}/${WAFER_MACOS_ARCH}-macos-cc")
set(CMAKE_CXX_COMPILER "${wrappers}/${WAFER_MACOS_ARCH}-macos-c++")
set(CMAKE_AR "${wrappers}/${WAFER_MACOS_ARCH}-macos-ar" CACHE FILEPATH "archiver")
set(CMAKE_RANLIB "${wrappers}/${WAFER_MACOS_ARCH}-macos-ranlib" CACHE FILEPATH "ranlib")
# CMake's compiler and flag checks compile without linking: a link would make Zig build
# libc++ once more for their flags (minutes), and the checks learn nothing from it.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# No SDK, no Xcode: CMake must not look for either.
set(CMAKE_OSX_SYSROOT "" CACHE PATH "no SDK: Zig brings the headers")
set(CMAKE_OSX_ARCHITECTURES "" CACHE STRING "one architecture, from the compiler's target")

# Libraries, headers and CMake packages from the prefix only (never the Linux host's);
# programs (python3, node) from the host.
set(CMAKE_FIND_ROOT_PATH "${WAFER_MACOS_DEPS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${WAFER_MACOS_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
