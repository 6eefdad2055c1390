#!/usr/bin/env python3
"""docs/settings.md's table of the daemon's settings is what `wafer help settings` prints.

  check_settings_table.py SOURCE_DIR WAFER_BINARY [--write]

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
DOC = os.path.join("docs", "settings.md")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    doc_path = os.path.join(argv[1], DOC)
    generated = subprocess.run([argv[2], "help", "settings"], check=True, capture_output=True,
                               text=True).stdout
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    if doc.count(BEGIN) != 1 or doc.count(END) != 1:
        print(f"{doc_path}: expected one '{BEGIN.strip()}' and one '{END.strip()}' line",
              file=sys.stderr)
        return 1
    start = doc.index(BEGIN) + len(BEGIN)
    end = doc.index(END)
    if end < start:
        print(f"{doc_path}: '{END.strip()}' before '{BEGIN.strip()}'", file=sys.stderr)
        return 1
    current = doc[start:end]
    if current == generated:
        return 0
    if "--write" in argv[3:]:
        with open(doc_path, "w", encoding="utf-8") as f:
            f.write(doc[:start] + generated + doc[end:])
        print(f"{doc_path}: settings table rewritten")
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), generated.splitlines(True),
                                               DOC, "wafer help settings"))
    print(f"{DOC}'s settings table differs from `wafer help settings`; regenerate it with\n"
          f"  {argv[0]} {argv[1]} {argv[2]} --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
