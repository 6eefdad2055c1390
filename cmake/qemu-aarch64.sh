#!/bin/sh
# ctest's emulator for the arm64 cross build: the test under qemu-aarch64 with the CPU model
# in WAFER_QEMU_CPU (default max) and the arm64 loader and libraries of the multiarch paths.
exec qemu-aarch64 -cpu "${WAFER_QEMU_CPU:-max}" -L /usr/aarch64-linux-gnu "$@"
