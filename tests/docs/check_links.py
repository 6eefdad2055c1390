#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md leads somewhere: the file or folder
exists, and an anchor (`file.md#section`, `#section`) names a heading of that Markdown file
as GitHub spells it. Links in code (fenced blocks, `spans`) and to other sites are not
followed.

    check_links.py REPO [FILE.md ...]

Without files: README.md and every docs/*.md. Exits 1 naming each broken link.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m:
            if fence is None:
                fence = m.group(1)
                continue
            if stripped.startswith(fence) and not stripped[len(fence):].strip():
                fence = None
                continue
        if fence is None:
            yield n, line


def without_code_spans(line):
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML goes
    text = text.replace("`", "").strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        text = open(path, encoding="utf-8").read()
        found, seen = set(), {}
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def check_file(repo, path):
    problems = []
    text = open(path, encoding="utf-8").read()
    shown = os.path.relpath(path, repo)
    lines = list(prose_lines(text))
    for i, (n, line) in enumerate(lines):
        plain = without_code_spans(line)
        targets = [m.group(3) for m in LINK.finditer(plain)]
        # A link whose text wraps onto the next line is read across the break.
        if i + 1 < len(lines) and lines[i + 1][0] == n + 1:
            joined = plain + " " + without_code_spans(lines[i + 1][1])
            targets += [m.group(3) for m in LINK.finditer(joined) if m.start() < len(plain) < m.end()]
        ref = REFERENCE.match(plain)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            if not target or re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # http:, https:, mailto: ... are not followed
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                problems.append(f"{shown}:{n}: {target}: {os.path.relpath(dest, repo)} does not exist")
                continue
            if anchor:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    problems.append(f"{shown}:{n}: {target}: an anchor into a file that is not Markdown")
                elif anchor not in anchors_of(dest):
                    problems.append(f"{shown}:{n}: {target}: {os.path.relpath(dest, repo)} has no heading "
                                    f"'#{anchor}'")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    repo = os.path.abspath(argv[1])
    files = [os.path.abspath(f) for f in argv[2:]] or \
        [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    problems = []
    for f in files:
        problems += check_file(repo, f)
    for p in problems:
        print("FAIL:", p)
    print(f"check_links: {len(files)} files, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
