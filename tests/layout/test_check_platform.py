#!/usr/bin/env python3
"""The platform check itself: OS headers and calls planted outside the platform files are
each reported; the same ones inside them, or in comments, are not."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_platform  # noqa: E402


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    with tempfile.TemporaryDirectory() as root:
        write(root, "engine/runtime/platform/linux.cpp", "#include <sys/mman.h>\n#include <linux/futex.h>\nsyscall(1);\n")
        write(root, "engine/runtime/platform/windows.cpp", "#include <windows.h>\n")
        write(root, "server/platform/posix.cpp", '#include <unistd.h>\nstd::ifstream f("/proc/self/statm");\n')
        write(root, "server/lsp/ok.cpp", "// reads /proc/self/statm through os::resident_kib (arch_prctl)\nint x;\n"
                                          "/* #include <windows.h> */\n")
        assert check_platform.check(root) == [], check_platform.check(root)
        planted = {
            "engine/gguf/a.cpp": "#include <sys/mman.h>\n",
            "engine/runtime/b.cpp": "#include <linux/futex.h>\n",
            "server/lsp/c.cpp": "#include <windows.h>\n",
            "server/service/d.cpp": "long n = syscall(SYS_gettid);\n",
            "server/service/e.cpp": 'std::ifstream f("/proc/self/statm");\n',
            "engine/kernels/f.cpp": "bool ok = arch_prctl(1, 2) == 0;\n",
            "server/cli/g.cpp": "#if defined(_WIN32)\n#endif\n",
            "engine/runtime/h.cpp": "sysctlbyname(\"hw.ncpu\", 0, 0, 0, 0);\n",
            "server/index/i.cpp": "#include <mach/mach.h>\n",
        }
        for path, text in planted.items():
            write(root, path, text)
        errors = check_platform.check(root)
        for path in planted:
            assert any(e.startswith(path + ":") for e in errors), f"missing: {path}\n" + "\n".join(errors)
        assert len(errors) == len(planted), "\n".join(errors)
    print("check_platform: every planted violation caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
