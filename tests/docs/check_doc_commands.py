#!/usr/bin/env python3
"""The wafer commands of README.md and docs/ are real, and docs/commands.md documents them all:

- every `wafer SUBCOMMAND --flag` the README, docs/commands.md, docs/settings.md and
  docs/development.md show names a subcommand (in shell blocks; inline code also shows
  status-bar texts such as `wafer off`) and flags that subcommand's --help lists;
- the repository files their shell blocks use exist (a FILE:LINE:COL position inside the file);
- the offline ones run: `wafer --version`, `wafer pull --list`, `wafer help settings` and
  the README Quick start's `wafer complete` on the sample file with the bundled model;
- docs/commands.md has a section `### wafer SUBCOMMAND` for every subcommand `wafer --help`
  lists, naming every option of `wafer SUBCOMMAND --help`; an option that is a daemon
  setting may instead be in docs/settings.md's table when the section links to it.

    check_doc_commands.py REPO WAFER_BINARY
"""
import os
import re
import shlex
import subprocess
import sys

def fenced_blocks(text):
    """(language, body) of each fenced block."""
    out, lang, body = [], None, None
    for line in text.splitlines():
        if line.startswith("```"):
            if body is None:
                lang, body = line[3:].strip(), []
            else:
                out.append((lang, body))
                lang, body = None, None
        elif body is not None:
            body.append(line)
    return out


def wafer_commands(text):
    """(origin, argv after 'wafer') for each wafer invocation a document shows."""
    found = []
    for lang, body in fenced_blocks(text):
        if lang not in ("sh", "bash", "shell", ""):
            continue
        for line in body:
            line = line.split(" #")[0].strip()
            for part in re.split(r"\$\(|\)|&&|\|\||;", line):
                try:
                    words = shlex.split(part)
                except ValueError:
                    continue
                for i, w in enumerate(words):
                    if w == "wafer" or w.endswith("/wafer"):
                        found.append(("block: " + line, words[i + 1:]))
                        break
    # Inline code spans that start with `wafer ` (the commands table, the prose).
    for span in re.findall(r"`(wafer [^`]+)`", text):
        span = span.replace("\\|", "|")
        for alt in span.split("`, `"):
            try:
                words = shlex.split(alt)
            except ValueError:
                words = alt.split()
            found.append(("inline: `" + alt + "`", words[1:]))
    return found


def flags_of(args):
    """The --flags a command line passes (placeholder alternatives split at '|')."""
    out = []
    for a in args:
        for piece in re.split(r"[|\[\]()]", a):
            piece = piece.strip()
            if piece.startswith("--") and len(piece) > 2:
                out.append(piece.split("=")[0])
    return out


DOCS = ["README.md", "docs/commands.md", "docs/settings.md", "docs/development.md"]
SETTINGS_LINK = "settings.md#daemon-settings"


def subcommand_sections(text):
    """{subcommand: its text} for each `### wafer SUB` heading, up to the next ## or ###."""
    out = {}
    for m in re.finditer(r"^### wafer (\w+)\n(.*?)(?=^##? |^### |\Z)", text, re.M | re.S):
        out[m.group(1)] = m.group(2)
    return out


def setting_flags(settings_md):
    """The flags of the generated table of daemon settings."""
    block = settings_md.split("<!-- settings:begin -->", 1)[-1].split("<!-- settings:end -->", 1)[0]
    return set(re.findall(r"^\| `(--[\w-]+)", block, re.M))


def undocumented(repo, wafer, subcommands):
    """What docs/commands.md leaves out of `wafer --help` and `wafer SUB --help`."""
    commands_md = open(os.path.join(repo, "docs", "commands.md"), encoding="utf-8").read()
    settings_md = open(os.path.join(repo, "docs", "settings.md"), encoding="utf-8").read()
    sections = subcommand_sections(commands_md)
    in_table = setting_flags(settings_md)
    missing, options = [], 0
    for sub in sorted(subcommands - {"help"}):
        if sub not in sections:
            missing.append(f"docs/commands.md: no section '### wafer {sub}'")
            continue
        body = sections[sub]
        usage = subprocess.run([wafer, sub, "--help"], capture_output=True, text=True).stdout
        for flag in re.findall(r"^  (--?[\w-]+)", usage, re.M):
            if flag == "--help":
                continue
            options += 1
            if re.search(re.escape(flag) + r"(?![\w-])", body):
                continue
            if flag in in_table and SETTINGS_LINK in body:
                continue
            missing.append(f"docs/commands.md: '### wafer {sub}' does not name its option {flag}"
                           + (f" (a daemon setting: or link to {SETTINGS_LINK})" if flag in in_table else ""))
    if options < 40:
        missing.append(f"only {options} options found in the subcommands' --help; the extraction broke")
    return missing


def main():
    repo, wafer = sys.argv[1], os.path.abspath(sys.argv[2])
    texts = {doc: open(os.path.join(repo, doc), encoding="utf-8").read() for doc in DOCS}
    text = texts["README.md"]
    failures = []
    top_help = subprocess.run([wafer, "--help"], capture_output=True, text=True).stdout
    subcommands = set(re.findall(r"^  ([a-z]+)\s{2,}", top_help, re.M)) | {"help"}
    helps = {}

    def help_of(sub, args):
        key = (sub, args[0] if sub == "bench" and args and not args[0].startswith("-") else "")
        if key not in helps:
            argv = [wafer, sub] + ([key[1]] if key[1] else []) + ["--help"]
            r = subprocess.run(argv, capture_output=True, text=True)
            helps[key] = r.stdout + r.stderr
        return helps[key]

    commands = [(f"{doc}: {origin}", args) for doc, t in texts.items() for origin, args in wafer_commands(t)]
    checked = 0
    for origin, args in commands:
        if not args:
            continue
        if args[0] in ("--version", "--help"):
            continue
        sub = args[0]
        if ": inline" in origin and sub not in subcommands:
            continue  # prose or status-bar text (`wafer 42 ms`, `wafer off`), not a command
        if sub not in subcommands:
            failures.append(f"{origin}: '{sub}' is not a wafer command ({', '.join(sorted(subcommands))})")
            continue
        if sub == "help":
            continue
        usage = help_of(sub, args[1:])
        for flag in flags_of(args[1:]):
            if not re.search(re.escape(flag) + r"(?![\w-])", usage):
                failures.append(f"{origin}: 'wafer {sub}' has no option {flag}")
        checked += 1

    # Repository files the shell blocks use.
    for lang, body in [block for t in texts.values() for block in fenced_blocks(t)]:
        if lang not in ("sh", "bash", "shell", ""):
            continue
        for line in body:
            line = line.split(" #")[0]
            for word in re.findall(r"(?<![\w/~$.-])((?:scripts|models|editors|tests|bench|tools)/[\w./:-]+)", line):
                path, _, position = word.partition(":")
                if not os.path.exists(os.path.join(repo, path)):
                    failures.append(f"block: {line.strip()}: {path} does not exist")
                    continue
                if position:
                    line_no, _, col = position.partition(":")
                    lines = open(os.path.join(repo, path), encoding="utf-8").read().split("\n")
                    if not line_no.isdigit() or not col.isdigit() or int(line_no) > len(lines) or \
                            int(col) > len(lines[int(line_no) - 1]) + 1:
                        failures.append(f"block: {line.strip()}: {word} is not a position in {path}")

    # The offline commands, for real.
    runs = [([wafer, "--version"], None), ([wafer, "pull", "--list"], "qwen2.5-coder-1.5b"),
            ([wafer, "help", "settings"], "| `--model")]
    quick = re.search(r"wafer complete (scripts/sample/[\w.]+:\d+:\d+)", text)
    if not quick:
        failures.append("the README no longer shows `wafer complete scripts/sample/...` in its Quick start")
    else:
        runs.append(([wafer, "complete", quick.group(1), "--threads", "1"], None))
    for argv, expect in runs:
        r = subprocess.run(argv, capture_output=True, text=True, cwd=repo, timeout=120)
        shown = " ".join(os.path.basename(a) if a == wafer else a for a in argv)
        if r.returncode != 0:
            failures.append(f"`{shown}` exited {r.returncode}: {r.stderr.strip()[-300:]}")
        elif expect and expect not in r.stdout:
            failures.append(f"`{shown}` did not print {expect!r}")
        elif argv[1] == "complete" and not r.stdout.strip():
            failures.append(f"`{shown}` printed no suggestion: {r.stderr.strip()[-300:]}")

    if checked < 30:
        failures.append(f"only {checked} wafer commands found in {', '.join(DOCS)}; the extraction broke")
    failures += undocumented(repo, wafer, subcommands)
    for f in failures:
        print("FAIL:", f)
    print(f"check_doc_commands: {checked} wafer command lines checked, {len(runs)} run, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
