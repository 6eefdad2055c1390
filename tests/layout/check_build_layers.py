#!/usr/bin/env python3
"""That the build itself refuses an include across the engine's and the server's layers.

  check_build_layers.py SOURCE_DIR BUILD_DIR

Each engine layer and each server layer compiles against an include folder of its own
(engine/CMakeLists.txt, server/CMakeLists.txt). For every layer, this preprocesses, with
the include flags the build gives that layer's own files (from
BUILD_DIR/compile_commands.json), one include of each folder of its part of the tree:
  - an engine layer must find its own folder and the layers below it in
    check_layers.ENGINE_ORDER (and engine/types.h, above base), and nothing above; the
    facade's implementation (the files at engine/ itself) finds every layer;
  - a server layer must find the server folders check_layers.py allows it and the engine's
    facade, and no other server folder nor the engine's insides.
Exits 1 on any difference, or when a layer has no compile command to read.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402

# One header per folder, present in the tree (the probe includes it).
PROBES = {
    "config": "server/config/options.h",
    "document": "server/document/documents.h",
    "prompt": "server/prompt/context.h",
    "pull": "server/pull/model_choice.h",
    "backends": "server/backends/backend.h",
    "index": "server/index/workspace_index.h",
    "service": "server/service/completion_service.h",
    "lsp": "server/lsp/protocol.h",
    "benchtool": "server/benchtool/bench_report.h",
    "cli": "server/cli/commands.h",
}
ENGINE_INSIDE = "engine/decode/session.h"
ENGINE_FACADE = "engine/engine.h"
ENGINE_TYPES = "engine/types.h"
ENGINE_PROBES = {
    "base": "engine/base/result.h",
    "runtime": "engine/runtime/threadpool.h",
    "quant": "engine/quant/quant.h",
    "gguf": "engine/gguf/gguf.h",
    "tokenizer": "engine/tokenizer/tokenizer.h",
    "kernels": "engine/kernels/kernels.h",
    "model": "engine/model/model.h",
    "compute": "engine/compute/forward.h",
    "decode": "engine/decode/session.h",
}


def include_flags(command):
    args = shlex.split(command)
    flags, i = [], 0
    while i < len(args):
        a = args[i]
        if a in ("-I", "-isystem"):
            flags += [a, args[i + 1]]
            i += 2
            continue
        if a.startswith(("-I", "-isystem", "-std=", "-D")):
            flags.append(a)
        i += 1
    return args[0], flags


def found(compiler, flags, header, cwd):
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(f'#include "{header}"\n')
        name = f.name
    try:
        r = subprocess.run([compiler, *flags, "-E", "-o", os.devnull, name], cwd=cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return r.returncode == 0, r.stderr
    finally:
        os.unlink(name)


def first_command(commands, directory, top_level_only=False):
    """The compile command of a file in `directory` (directly in it if top_level_only)."""
    for c in commands:
        path = os.path.abspath(c["file"])
        if path.startswith(directory) and (not top_level_only or os.path.dirname(path) + os.sep == directory):
            return c
    return None


def expect(errors, who, compiler, flags, entry, header, want):
    ok, err = found(compiler, flags, header, entry["directory"])
    if ok != want:
        errors.append(f"{who}: #include \"{header}\" "
                      f"{'compiles' if ok else 'fails'} but should {'compile' if want else 'fail'}"
                      + ("" if ok else f": {err.strip().splitlines()[0] if err.strip() else ''}"))


def check_engine(source_dir, commands):
    errors = []
    order = check_layers.ENGINE_ORDER
    assert sorted(order) == sorted(ENGINE_PROBES), "a probe header per engine layer"
    layers = [(layer, os.path.join(source_dir, "engine", layer) + os.sep, False) for layer in order]
    layers.append(("facade", os.path.join(source_dir, "engine") + os.sep, True))
    for rank, (layer, directory, top_level_only) in enumerate(layers):
        who = "engine/" if layer == "facade" else f"engine/{layer}/"
        entry = first_command(commands, directory, top_level_only)
        if entry is None:
            errors.append(f"{who}: no compile command (is it a library of its own?)")
            continue
        compiler, flags = include_flags(entry["command"])
        for other_rank, other in enumerate(order):
            expect(errors, who, compiler, flags, entry, ENGINE_PROBES[other], other_rank <= rank)
        expect(errors, who, compiler, flags, entry, ENGINE_TYPES, rank > 0)
        expect(errors, who, compiler, flags, entry, ENGINE_FACADE, layer == "facade")
    return errors


def check(source_dir, build_dir):
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        commands = json.load(f)
    errors = check_engine(source_dir, commands)
    for layer, allowed in check_layers.SERVER_ALLOWED.items():
        if layer == "cli":
            continue  # sees the whole tree by design
        own = os.path.join(source_dir, "server", layer) + os.sep
        entry = next((c for c in commands if os.path.abspath(c["file"]).startswith(own)), None)
        if entry is None:
            errors.append(f"server/{layer}/: no compile command (is it a library of its own?)")
            continue
        compiler, flags = include_flags(entry["command"])
        for other, header in PROBES.items():
            want = other == layer or other in allowed
            ok, err = found(compiler, flags, header, entry["directory"])
            if ok != want:
                errors.append(f"server/{layer}/: #include \"{header}\" "
                              f"{'compiles' if ok else 'fails'} but should {'compile' if want else 'fail'}"
                              + ("" if ok else f": {err.strip().splitlines()[0] if err.strip() else ''}"))
        for header, want in ((ENGINE_FACADE, True), (ENGINE_INSIDE, False)):
            ok, _ = found(compiler, flags, header, entry["directory"])
            if ok != want:
                errors.append(f"server/{layer}/: #include \"{header}\" {'compiles' if ok else 'fails'}")
    return errors


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    errors = check(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    for e in errors:
        print(e)
    if not errors:
        print(f"check_build_layers: {len(check_layers.ENGINE_ORDER) + 1} engine and "
              f"{len(check_layers.SERVER_ALLOWED) - 1} server libraries, each sees exactly what it may")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
