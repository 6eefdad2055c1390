#!/bin/sh
# ctest's emulator for the arm64 cross build: the test under qemu-aarch64 with the CPU model
# in WAFER_QEMU_CPU (default max). The guest loads the multiarch arm64 runtime
# (/lib/ld-linux-aarch64.so.1 and /usr/lib/aarch64-linux-gnu from libc6:arm64,
# libstdc++6:arm64, ...), not the cross toolchain's copy in /usr/aarch64-linux-gnu: with that
# libc (qemu -L /usr/aarch64-linux-gnu, or it on LD_LIBRARY_PATH) every program that starts
# a thread hangs in pthread_create under qemu 7.2's user mode.
unset LD_LIBRARY_PATH QEMU_LD_PREFIX
exec qemu-aarch64 -cpu "${WAFER_QEMU_CPU:-max}" "$@"
