"""Deterministic training corpus for wafer's bundled model.

Collects permissively licensed source code that Debian packages (and the repo's pinned npm
grammars) have already put on this machine, filters out generated/minified files, removes
exact duplicates and splits train / held-out *by file* (a hash of the file's source path),
so the same inputs always give the same split. Output: `train.jsonl` and `heldout.jsonl`
(one JSON object per file: source, path, license, text) and `manifest.json` in the cache
directory. Nothing here is committed; the manifest's counts go into models/README.md.

Usage: /usr/bin/python3 tools/train/corpus.py [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "wafer" / "train"

# Licenses we accept (SPDX ids as npm package.json files spell them).
PERMISSIVE = {"MIT", "ISC", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "BlueOak-1.0.0",
              "PSF-2.0", "BSL-1.0", "0BSD"}

HELDOUT_PERCENT = 3          # share of files held out (by path hash)
MIN_BYTES, MAX_BYTES = 256, 1_000_000
MAX_LINE = 400               # longest allowed line (minified/generated code has longer ones)
MAX_MEAN_LINE = 90


@dataclass(frozen=True)
class Source:
    """One family of files: where they live, which extensions, and their license."""
    name: str
    debian_package: str           # for the manifest (version recorded); "" if not from dpkg
    root: Path
    extensions: tuple[str, ...]
    license_of: Callable[[Path], str | None]   # None = skip this file
    skip_dirs: tuple[str, ...] = ()
    skip_names: tuple[str, ...] = ()


def _fixed(license_id: str) -> Callable[[Path], str | None]:
    return lambda _path: license_id


def _npm_license(path: Path) -> str | None:
    """License declared by the nearest package.json above `path` (None if not permissive)."""
    for parent in path.parents:
        manifest = parent / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if "name" not in data:      # nested package.json files that only set "type"
                continue
            lic = data.get("license")
            if isinstance(lic, dict):
                lic = lic.get("type")
            return lic if isinstance(lic, str) and lic in PERMISSIVE else None
        if parent.name == "node_modules":
            break
    return None


def sources() -> list[Source]:
    py = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return [
        Source("python-stdlib", f"lib{py}-stdlib", Path("/usr/lib") / py, (".py",),
               _fixed("PSF-2.0"), skip_dirs=("site-packages", "dist-packages", "__pycache__")),
        Source("numpy", "python3-numpy", Path("/usr/lib/python3/dist-packages/numpy"), (".py",),
               _fixed("BSD-3-Clause"), skip_dirs=("__pycache__",)),
        Source("npm-bundled-with-nodejs", "nodejs", Path("/usr/lib/node_modules"),
               (".js", ".cjs", ".mjs"), _npm_license, skip_dirs=("dist",)),
        Source("tree-sitter-grammars", "", REPO / "grammars" / "node_modules",
               (".js", ".c", ".h", ".cc"), _npm_license,
               skip_dirs=("prebuilds", "build", "node-addon-api", "node-gyp-build"),
               skip_names=("parser.c",)),
        Source("nlohmann-json", "nlohmann-json3-dev", Path("/usr/include/nlohmann"), (".hpp",),
               _fixed("MIT")),
        Source("catch2", "catch2", Path("/usr/include/catch2"), (".hpp",), _fixed("BSL-1.0")),
        Source("libuv-headers", "libuv1-dev", Path("/usr/include/uv"), (".h",), _fixed("MIT")),
    ]


LANG_BY_EXT = {".py": "python", ".js": "javascript", ".cjs": "javascript", ".mjs": "javascript",
               ".c": "c", ".h": "c", ".cc": "cpp", ".hpp": "cpp"}


def is_heldout(key: str) -> bool:
    """Stable split: the first 8 bytes of sha256(key) modulo 100 below HELDOUT_PERCENT."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 100 < HELDOUT_PERCENT


def looks_generated(text: str) -> bool:
    lines = text.split("\n")
    if not lines:
        return True
    longest = max(len(line) for line in lines)
    mean = sum(len(line) for line in lines) / len(lines)
    return longest > MAX_LINE or mean > MAX_MEAN_LINE


def walk(source: Source) -> Iterator[Path]:
    if not source.root.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(source.root):
        dirnames[:] = sorted(d for d in dirnames if d not in source.skip_dirs)
        for name in sorted(filenames):
            if name.endswith(source.extensions) and name not in source.skip_names:
                yield Path(dirpath) / name


def package_version(package: str) -> str:
    if not package:
        return ""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             capture_output=True, text=True, check=False)
        return out.stdout.strip()
    except OSError:
        return ""


def collect() -> tuple[list[dict], dict]:
    """All accepted files (sorted, deduplicated) and per-source statistics."""
    docs: list[dict] = []
    seen: set[str] = set()
    stats: dict[str, dict] = {}
    for source in sources():
        st = {"root": str(source.root), "debian_package": source.debian_package,
              "version": package_version(source.debian_package), "files": 0, "bytes": 0,
              "skipped_license": 0, "skipped_generated": 0, "skipped_size": 0,
              "skipped_duplicate": 0, "licenses": {}}
        for path in walk(source):
            lic = source.license_of(path)
            if lic is None:
                st["skipped_license"] += 1
                continue
            try:
                raw = path.read_bytes()
            except OSError:
                continue
            if not MIN_BYTES <= len(raw) <= MAX_BYTES:
                st["skipped_size"] += 1
                continue
            try:
                text = raw.decode("utf-8").replace("\r\n", "\n")
            except UnicodeDecodeError:
                st["skipped_generated"] += 1
                continue
            if looks_generated(text):
                st["skipped_generated"] += 1
                continue
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if digest in seen:
                st["skipped_duplicate"] += 1
                continue
            seen.add(digest)
            rel = f"{source.name}/{path.relative_to(source.root)}"
            docs.append({"source": source.name, "path": rel, "license": lic,
                         "lang": LANG_BY_EXT.get(path.suffix, "text"), "text": text})
            st["files"] += 1
            st["bytes"] += len(text.encode("utf-8"))
            st["licenses"][lic] = st["licenses"].get(lic, 0) + 1
        stats[source.name] = st
    docs.sort(key=lambda d: d["path"])
    return docs, stats


def write_jsonl(path: Path, docs: list[dict]) -> str:
    h = hashlib.sha256()
    with path.open("w", encoding="utf-8") as f:
        for doc in docs:
            line = json.dumps(doc, ensure_ascii=False) + "\n"
            f.write(line)
            h.update(line.encode("utf-8"))
    return h.hexdigest()


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def build(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    docs, stats = collect()
    train = [d for d in docs if not is_heldout(d["path"])]
    held = [d for d in docs if is_heldout(d["path"])]
    manifest = {
        "sources": stats,
        "heldout_percent": HELDOUT_PERCENT,
        "train": {"files": len(train), "bytes": sum(len(d["text"].encode()) for d in train),
                  "sha256": write_jsonl(out / "train.jsonl", train)},
        "heldout": {"files": len(held), "bytes": sum(len(d["text"].encode()) for d in held),
                    "sha256": write_jsonl(out / "heldout.jsonl", held)},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_CACHE, help="cache directory")
    args = ap.parse_args()
    m = build(args.out)
    for name, st in m["sources"].items():
        print(f"{name:26s} files={st['files']:5d} bytes={st['bytes']:>10,d} "
              f"skipped(license={st['skipped_license']}, generated={st['skipped_generated']}, "
              f"size={st['skipped_size']}, dup={st['skipped_duplicate']})")
    print(f"train   files={m['train']['files']} bytes={m['train']['bytes']:,}")
    print(f"heldout files={m['heldout']['files']} bytes={m['heldout']['bytes']:,}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
