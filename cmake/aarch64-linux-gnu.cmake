# Cross-compiling for 64-bit Arm Linux with Debian's crossbuild-essential-arm64 and the
# multiarch :arm64 library packages (scripts/setup.sh arm64 installs them):
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# ctest then runs the tests under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR) with the CPU
# model in WAFER_QEMU_CPU (default max: dot product, i8mm, SVE; cortex-a57 has none of
# them, so the plain NEON kernels run), read when ctest runs, not when CMake configures.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config: the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
# Libraries and headers from the multiarch paths; programs (python3, node) from the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR
    "${CMAKE_CURRENT_LIST_DIR}/qemu-aarch64.sh" CACHE FILEPATH "runs aarch64 test executables")
