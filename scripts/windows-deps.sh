#!/usr/bin/env bash
# Builds the C libraries wafer links that Debian has no mingw-w64 packages of, from Debian
# 12's own source packages, static, for Windows x86-64: libuv (the daemon's event loop) and
# libcurl with Schannel, Windows' own TLS (`wafer pull`, `wafer bench infill`, the remote
# backend), HTTP(S) only, and copies the header-only nlohmann-json and Catch2 with their
# CMake configs. The sources come from Debian's mirror (scripts/debian-sources.sh).
#
#   scripts/windows-deps.sh PREFIX
#
# Installs into PREFIX (lib/, include/, lib/pkgconfig/). When PREFIX already holds the build
# of this recipe (PREFIX/.recipe matches) it does nothing, so a rerun skips it.
set -euo pipefail
prefix=${1:?usage: windows-deps.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
SUITE=bookworm
recipe="libuv1, curl (schannel, http only) from Debian $SUITE sources, mingw-w64 static; nlohmann-json, catch2 headers; v2"
if [ -f "$prefix/lib/libuv.a" ] && [ "$(cat "$prefix/.recipe" 2>/dev/null)" = "$recipe" ]; then
  exit 0
fi
jobs=${JOBS:-$(nproc)}
log() { echo "windows-deps: $*" >&2; }
here=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

# shellcheck source=debian-sources.sh
. "$here/scripts/debian-sources.sh"
fetch_debian_sources "$work" "$SUITE" libuv1 curl
unpack() { unpack_debian_source "$work" "$1"; }  # the upstream tarball of package $1 into $work/$1

cmake_opts=(-G Ninja -DCMAKE_TOOLCHAIN_FILE="$here/cmake/mingw-w64.cmake" -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF)
unpack libuv1
log "building libuv"
cmake -S "$work/libuv1" -B "$work/libuv1/build" "${cmake_opts[@]}" -DLIBUV_BUILD_TESTS=OFF \
  -DLIBUV_BUILD_BENCH=OFF >&2
cmake --build "$work/libuv1/build" -j "$jobs" --target uv_a >&2
mkdir -p "$prefix/lib" "$prefix/include"
cp "$work/libuv1/build/libuv_a.a" "$prefix/lib/libuv.a"
cp -r "$work/libuv1/include/." "$prefix/include/"
# pkg-config's description, with the Windows libraries libuv calls.
mkdir -p "$prefix/lib/pkgconfig"
cat > "$prefix/lib/pkgconfig/libuv.pc" <<PC
prefix=$prefix
Name: libuv
Description: libuv (static, mingw-w64)
Version: $(ls "$work/apt/src" | sed -n 's/^libuv1_\([0-9.]*\)\.orig\.tar.*/\1/p' | head -1)
Libs: -L\${prefix}/lib -luv -lpsapi -luser32 -ladvapi32 -liphlpapi -luserenv -lws2_32 -ldbghelp -lole32 -lshell32
Cflags: -I\${prefix}/include
PC

unpack curl
log "building curl"
cmake -S "$work/curl" -B "$work/curl/build" "${cmake_opts[@]}" -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF \
  -DHTTP_ONLY=ON -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_LIBIDN2=OFF -DUSE_NGHTTP2=OFF \
  -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBPSL=OFF -DENABLE_MANUAL=OFF -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF \
  -DCURL_DISABLE_LDAP=ON -DENABLE_UNIX_SOCKETS=OFF -DCURL_CA_PATH=none -DCURL_CA_BUNDLE=none >&2
cmake --build "$work/curl/build" -j "$jobs" >&2
cmake --install "$work/curl/build" >&2

# The header-only libraries from Debian's packages, with their CMake configs, under the
# prefix: the cross build must not put the host's /usr/include on its include path.
mkdir -p "$prefix/include" "$prefix/share/cmake" "$prefix/lib/cmake"
cp -r /usr/include/nlohmann "$prefix/include/"
cp -r /usr/share/cmake/nlohmann_json "$prefix/share/cmake/"
cp -r /usr/include/catch2 "$prefix/include/"
cp -r /usr/lib/cmake/Catch2 "$prefix/lib/cmake/"
# (Without the host-built Catch2WithMain library it names: the tests have their own main.)
rm -f "$prefix/lib/cmake/Catch2/Catch2Targets-"*.cmake

echo "$recipe" > "$prefix/.recipe"
log "done in $(( $(date +%s) - start )) s"
