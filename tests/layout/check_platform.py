#!/usr/bin/env python3
"""Operating-system headers and calls appear only in the platform files.

  check_platform.py SOURCE_DIR

In engine/ and server/, the headers and calls of a particular OS (<windows.h>, <unistd.h>,
<sys/...>, <linux/...>, <mach/...>, syscall(, /proc/, arch_prctl, sysctl, the OS macros,
...) are allowed only in the files that implement the platform interfaces:
engine/runtime/platform/*.cpp (engine/runtime/platform.h) and server/platform/*.cpp
(server/platform/platform.h), plus the exceptions listed in ALLOWED with their reason.
Comments are not looked at. Prints every violation and exits 1 if there is one.
"""
import os
import re
import sys

PLATFORM_DIRS = ("engine/runtime/platform/", "server/platform/")
# Files outside the platform folders that may name an OS, and why.
ALLOWED = {
    # The Arm CPU's features are only known through the OS (Linux getauxval, macOS sysctl).
    "engine/runtime/cpu_features_arm.cpp",
}
HEADERS = re.compile(r"#\s*include\s*<(windows\.h|winsock2?\.h|ws2tcpip\.h|io\.h|psapi\.h|shellapi\.h|"
                     r"unistd\.h|fcntl\.h|poll\.h|signal\.h|pthread\.h|sched\.h|dlfcn\.h|spawn\.h|"
                     r"sys/[^>]+|linux/[^>]+|mach/[^>]+|mach-o/[^>]+|netinet/[^>]+|arpa/[^>]+)>")
CALLS = re.compile(r"\bsyscall\s*\(|/proc/|/sys/devices|\barch_prctl\b|\bsysctl(byname)?\b|\bfork\s*\(|"
                   r"\bexecvp?\s*\(|\bmmap\s*\(|\bmlock\s*\(|\bsysconf\s*\(|\bisatty\s*\(|"
                   r"\b(__linux__|_WIN32|_WIN64|__APPLE__|__MACH__|__MINGW32__|_MSC_VER)\b")


def sources(root):
    for top in ("engine", "server"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".h", ".cpp", ".c")):
                    yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def code_lines(text):
    """Lines with // and /* */ comments blanked (string literals are kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for n, line in enumerate(text.split("\n"), 1):
        cut = line.find("//")
        if cut >= 0 and line.count('"', 0, cut) % 2 == 0:
            line = line[:cut]
        yield n, line


def check(root):
    errors = []
    for path in sources(root):
        if path.startswith(PLATFORM_DIRS) or path in ALLOWED:
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        for n, line in code_lines(text):
            m = HEADERS.search(line) or CALLS.search(line)
            if m:
                errors.append(f"{path}:{n}: {m.group(0).strip()}: OS-specific, belongs in a platform file "
                              "(engine/runtime/platform/ or server/platform/)")
    return errors


def main():
    errors = check(sys.argv[1])
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} platform violation(s)")
        return 1
    print("platform: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
