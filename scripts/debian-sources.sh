# Sourced by the scripts that build a dependency from Debian's own source packages
# (editors/nvim/test/build-nvim.sh, scripts/windows-deps.sh). Only Debian's mirror is used,
# through a private apt state: the system's apt sources are not touched.
#
#   fetch_debian_sources WORK SUITE PKG...   the upstream tarball of each source package
#                                            into WORK/apt/src (the newest version listed)
#   unpack_debian_source WORK PKG            that tarball, unpacked into WORK/PKG
# Both print progress on stderr and exit on failure.

fetch_debian_sources() {
  local work=$1 suite=$2
  shift 2
  mkdir -p "$work/apt/lists/partial" "$work/apt/src" "$work/apt/cache/archives/partial"
  {
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
    # A stable suite's security updates (absent for testing: apt then only warns).
    case $suite in
      bookworm|bullseye) echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $suite-security main" ;;
    esac
  } > "$work/apt/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=-"
                  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache" -o "APT::Get::List-Cleanup=0")
  echo "debian-sources: apt-get update ($suite sources)" >&2
  apt-get "${apt_opts[@]}" update -q >&2
  # Only the upstream tarballs are needed (Debian's patches are not applied); they are taken
  # from the URIs apt prints, checked against the Sources index's SHA256 (the mirror may lack
  # a point release's .dsc while it has the tarball). Signatures (.asc) are not needed.
  local pkg uri file hash
  for pkg in "$@"; do
    apt-get "${apt_opts[@]}" source --print-uris -q "$pkg" | grep "\.orig\.tar\." | grep -v "\.asc'" | tail -1 |
      while read -r uri file _ hash; do
        uri=${uri//\'/}
        echo "debian-sources: fetching $file" >&2
        curl -fsS -o "$work/apt/src/$file" "$uri"
        case $hash in
          SHA256:*) echo "${hash#SHA256:}  $work/apt/src/$file" | sha256sum -c --quiet - ;;
        esac
      done
  done
  ls "$work/apt/src" >&2
}

unpack_debian_source() {
  local work=$1 pkg=$2 tarball
  tarball=$(ls "$work/apt/src/$pkg"_*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$tarball" ] || { echo "debian-sources: no source tarball for $pkg" >&2; exit 1; }
  mkdir -p "$work/$pkg"
  tar -xf "$tarball" -C "$work/$pkg" --strip-components=1
}
