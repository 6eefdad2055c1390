#!/usr/bin/env python3
"""The editors' reference in docs/ is the editors' code:

- docs/settings.md, section "VS Code": one row per setting of editors/vscode/package.json,
  with its default; section "Neovim": one row per option of the plugin's defaults
  (editors/nvim/lua/wafer/config.lua, `keymaps.*` one by one), with its default where it
  is one value;
- docs/commands.md, section "VS Code": every command of package.json, with its default key;
  section "Neovim": every user command editors/nvim/lua/wafer/commands.lua defines.

    check_editor_docs.py REPO

Exits 1 naming each difference.
"""
import json
import os
import re
import sys


def section(text, heading):
    """The lines under `## heading` up to the next heading of that level."""
    m = re.search(r"^## " + re.escape(heading) + r"\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else None


def table_rows(text):
    """Cells of each body row of the Markdown tables in text ('\\|' stays in its cell)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|") or re.match(r"\|[-| :]+\|$", line):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append(cells)
    return rows[1:] if rows else rows  # the first row is a header


def code_names(cell):
    return re.findall(r"`([^`]+)`", cell)


def lua_defaults(path):
    """{option: value text} of M.defaults; nested tables other than keymaps are 'TABLE'."""
    text = open(path, encoding="utf-8").read()
    body = re.search(r"^M\.defaults = \{\n(.*?)^\}", text, re.M | re.S).group(1)
    out, nested = {}, None
    for line in body.splitlines():
        line = re.sub(r"\s*--.*$", "", line)
        if not line.strip():
            continue
        m = re.match(r"^  (\w+) = (.*?),?$", line)
        if m:
            name, value = m.groups()
            if value == "{":
                nested = name
                if name != "keymaps":
                    out[name] = "TABLE"
            else:
                out[name] = value
            continue
        if line.startswith("  }"):
            nested = None
            continue
        m = re.match(r"^    (\w+) = (.*?),?$", line)
        if m and nested == "keymaps":
            out["keymaps." + m.group(1)] = m.group(2)
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    repo = argv[1]
    settings_md = open(os.path.join(repo, "docs", "settings.md"), encoding="utf-8").read()
    commands_md = open(os.path.join(repo, "docs", "commands.md"), encoding="utf-8").read()
    package = json.load(open(os.path.join(repo, "editors", "vscode", "package.json"), encoding="utf-8"))
    problems = []

    def need(text, where):
        if text is None:
            problems.append(f"no section '## {where}'")
            return ""
        return text

    # VS Code settings.
    props = package["contributes"]["configuration"]["properties"]
    rows = {}
    for cells in table_rows(need(section(settings_md, "VS Code"), "VS Code in docs/settings.md")):
        for name in code_names(cells[0]):
            rows[name] = cells[1] if len(cells) > 1 else ""
    for name, spec in props.items():
        if name not in rows:
            problems.append(f"docs/settings.md (VS Code): no row for the setting {name}")
            continue
        shown = rows[name].strip("`")
        try:
            value = json.loads(shown)
        except ValueError:
            value = shown  # a string default is shown without quotes
        if value != spec.get("default"):
            problems.append(f"docs/settings.md (VS Code): {name} defaults to "
                            f"{json.dumps(spec.get('default'))}, not {rows[name]}")
    for name in rows:
        if name not in props:
            problems.append(f"docs/settings.md (VS Code): {name} is not a setting of the extension")

    # VS Code commands and their keys.
    keys = {}
    for binding in package["contributes"].get("keybindings", []):
        keys.setdefault(binding["command"], []).append(binding["key"].lower())
    command_rows = {}
    for cells in table_rows(need(section(commands_md, "VS Code"), "VS Code in docs/commands.md")):
        for name in re.findall(r"`(wafer\.\w+)`", cells[0]):
            command_rows[name] = cells
    for spec in package["contributes"]["commands"]:
        name = spec["command"]
        if name not in command_rows:
            problems.append(f"docs/commands.md (VS Code): no row for the command {name} ({spec['title']})")
            continue
        shown_keys = command_rows[name][1].lower() if len(command_rows[name]) > 1 else ""
        for key in keys.get(name, []):
            if f"`{key}`" not in shown_keys:
                problems.append(f"docs/commands.md (VS Code): {name}'s default key {key} is not in its row")
    commands = {spec["command"] for spec in package["contributes"]["commands"]}
    for name in command_rows:
        if name not in commands:
            problems.append(f"docs/commands.md (VS Code): {name} is not a command of the extension")

    # Neovim options.
    defaults = lua_defaults(os.path.join(repo, "editors", "nvim", "lua", "wafer", "config.lua"))
    documented = {}
    for cells in table_rows(need(section(settings_md, "Neovim"), "Neovim in docs/settings.md")):
        names = code_names(cells[0])
        values = [v.strip() for v in cells[1].split(" / ")] if len(cells) > 1 else []
        for i, name in enumerate(names):
            documented[name] = values[i] if len(values) == len(names) else None
    for name, value in defaults.items():
        if name not in documented:
            problems.append(f"docs/settings.md (Neovim): no row for the option {name}")
        elif value != "TABLE" and documented[name] is not None and documented[name] != f"`{value}`":
            problems.append(f"docs/settings.md (Neovim): {name} defaults to {value}, not {documented[name]}")
    for name in documented:
        if name not in defaults:
            problems.append(f"docs/settings.md (Neovim): {name} is not an option of the plugin")

    # Neovim user commands.
    lua = open(os.path.join(repo, "editors", "nvim", "lua", "wafer", "commands.lua"), encoding="utf-8").read()
    user_commands = set(re.findall(r"command\('(Wafer\w+)'", lua)) | set(re.findall(r"^\s+(Wafer\w+) = '", lua, re.M))
    neovim = need(section(commands_md, "Neovim"), "Neovim in docs/commands.md")
    shown_commands = set(re.findall(r"`:(Wafer\w+)", neovim))
    for name in sorted(user_commands - shown_commands):
        problems.append(f"docs/commands.md (Neovim): no row for :{name}")
    for name in sorted(shown_commands - user_commands):
        problems.append(f"docs/commands.md (Neovim): :{name} is not a command of the plugin")
    if len(user_commands) < 8 or len(props) < 8 or len(defaults) < 15:
        problems.append(f"found only {len(user_commands)} Neovim commands, {len(props)} VS Code settings and "
                        f"{len(defaults)} Neovim options: the extraction broke")

    for p in problems:
        print("FAIL:", p)
    print(f"check_editor_docs: {len(props)} VS Code settings, {len(commands)} commands, {len(defaults)} Neovim "
          f"options, {len(user_commands)} Neovim commands; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
