# Cross-compiling for Windows x86-64 with Debian's mingw-w64 (the posix thread model, which
# has std::thread; scripts/setup.sh windows installs it):
#   cmake -S . -B build-windows -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
# Static executables (no DLLs to carry). ctest runs the tests under wine64
# (cmake/wine64.sh). WAFER_WINDOWS_DEPS is the prefix of the libraries built by
# scripts/windows-deps.sh (libuv, libcurl).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${WAFER_WINDOWS_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
if(WAFER_WINDOWS_DEPS)
  set(ENV{PKG_CONFIG_LIBDIR} "${WAFER_WINDOWS_DEPS}/lib/pkgconfig")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/wine64.sh" CACHE FILEPATH "runs Windows test executables")
# The Windows x64 ABI keeps the stack 16-byte aligned and GCC does not realign it for the
# 32- and 64-byte vectors it spills there (GCC bug 54412): the assembler turns the aligned
# moves into unaligned ones, which cost nothing on aligned data.
set(CMAKE_C_FLAGS_INIT "-Wa,-muse-unaligned-vector-move")
set(CMAKE_CXX_FLAGS_INIT "-Wa,-muse-unaligned-vector-move")
