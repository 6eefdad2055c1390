#!/usr/bin/env bash
# Builds a newer Neovim than Debian 12's 0.7.2 from Debian's own source packages (trixie's
# neovim 0.10.4, with the libvterm and tree-sitter it needs built first), so the plugin's
# tests also run on the 0.10+ code paths (inline virtual text). Only Debian's mirror is
# used: the sources come through `apt-get source` with a private apt state (the system's
# apt sources are not touched), the build tools from Debian 12.
#
#   editors/nvim/test/build-nvim.sh PREFIX
#
# Installs into PREFIX (PREFIX/bin/nvim) and prints that path. When PREFIX already holds the
# build of this recipe (PREFIX/.recipe matches), it does nothing: CI caches it in the build
# folder, so only the first run pays (~1.5 min on 2 cores). Needs root for apt-get install.
set -euo pipefail
prefix=${1:?usage: build-nvim.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
SUITE=trixie
NVIM=0.10.4
recipe="neovim $NVIM from Debian $SUITE sources; libvterm, tree-sitter static; v1"
if [ -x "$prefix/bin/nvim" ] && [ "$(cat "$prefix/.recipe" 2>/dev/null)" = "$recipe" ]; then
  echo "$prefix/bin/nvim"
  exit 0
fi
jobs=${JOBS:-$(nproc)}
log() { echo "build-nvim: $*" >&2; }

# Build tools and the libraries Debian 12 has in new enough versions.
deps=(build-essential cmake ninja-build gettext gperf libtool libtool-bin pkg-config dpkg-dev
      libluajit-5.1-dev luajit lua-luv-dev lua-lpeg-dev libunibilium-dev libmsgpack-dev libuv1-dev curl)
missing=()
for p in "${deps[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

# Debian's source packages of the newer suite, through a private apt state.
# shellcheck source=../../../scripts/debian-sources.sh
. "$(dirname "$0")/../../../scripts/debian-sources.sh"
fetch_debian_sources "$work" "$SUITE" neovim libvterm tree-sitter
unpack() { unpack_debian_source "$work" "$1"; }  # the upstream tarball of package $1 into $work/$1

# libvterm (neovim 0.10 needs >= 0.3.3; Debian 12 has 0.3.1) and the tree-sitter runtime
# (>= 0.22; Debian 12 has 0.20.7), static, so the nvim binary needs nothing from PREFIX/lib.
deps_prefix=$work/deps
unpack libvterm
log "building libvterm"
make -C "$work/libvterm" -j "$jobs" PREFIX="$deps_prefix" install >&2
unpack tree-sitter
log "building tree-sitter"
make -C "$work/tree-sitter" -j "$jobs" PREFIX="$deps_prefix" install >&2
rm -f "$deps_prefix"/lib/*.so* "$deps_prefix"/lib/*.la

unpack neovim
log "building neovim"
cmake -S "$work/neovim" -B "$work/neovim/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g0 -DNDEBUG" \
  -DCMAKE_PREFIX_PATH="$deps_prefix" -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DPKG_CONFIG_USE_CMAKE_PREFIX_PATH=ON -DENABLE_TRANSLATIONS=OFF -DENABLE_LTO=OFF >&2
nice -n 10 ninja -C "$work/neovim/build" -j "$jobs" >&2
ninja -C "$work/neovim/build" install >&2
"$prefix/bin/nvim" --version | head -1 >&2
echo "$recipe" > "$prefix/.recipe"
log "done in $(( $(date +%s) - start )) s"
echo "$prefix/bin/nvim"
