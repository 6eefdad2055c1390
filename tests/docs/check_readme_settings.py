#!/usr/bin/env python3
"""README.md's table of settings is what `wafer help settings` prints.

  check_readme_settings.py SOURCE_DIR WAFER_BINARY [--write]

The table sits between the lines `<!-- settings:begin -->` and `<!-- settings:end -->`;
it is generated from the settings table (server/config/settings_table.cpp). Without
--write, prints a diff and exits 1 when they differ; with --write, rewrites the block.
"""
import difflib
import os
import subprocess
import sys

BEGIN = "<!-- settings:begin -->\n"
END = "<!-- settings:end -->\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    readme_path = os.path.join(argv[1], "README.md")
    generated = subprocess.run([argv[2], "help", "settings"], check=True, capture_output=True,
                               text=True).stdout
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    if readme.count(BEGIN) != 1 or readme.count(END) != 1:
        print(f"{readme_path}: expected one '{BEGIN.strip()}' and one '{END.strip()}' line",
              file=sys.stderr)
        return 1
    start = readme.index(BEGIN) + len(BEGIN)
    end = readme.index(END)
    if end < start:
        print(f"{readme_path}: '{END.strip()}' before '{BEGIN.strip()}'", file=sys.stderr)
        return 1
    current = readme[start:end]
    if current == generated:
        return 0
    if "--write" in argv[3:]:
        with open(readme_path, "w", encoding="utf-8") as f:
            f.write(readme[:start] + generated + readme[end:])
        print(f"{readme_path}: settings table rewritten")
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), generated.splitlines(True),
                                               "README.md", "wafer help settings"))
    print("README.md's settings table differs from `wafer help settings`; regenerate it with\n"
          f"  {argv[0]} {argv[1]} {argv[2]} --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
