#!/usr/bin/env python3
"""The layering rules of engine/ and server/, checked from the #include lines.

  check_layers.py SOURCE_DIR [WAFER_BINARY]

Rules (docs/architecture.md explains them):
  - engine/ includes nothing from server/, grammars/ or tests/, and each engine layer
    includes only layers below it (base < runtime < quant < gguf < tokenizer < kernels <
    model < compute < decode < the facade).
  - Outside server/cli/, the server includes from the engine only engine/engine.h,
    engine/types.h and engine/base/.
  - Each server folder includes only the server folders listed for it below (server/lsp/
    nothing of server/service/, for example); server/platform/ (the process's OS services)
    includes no other server folder.
  - Nothing in engine/ or server/ includes tests/ (test doubles and fixtures stay out of
    the product), and, given the built `wafer`, none of their symbols is in it.
  - No folder of engine/ or server/ holds more than 25 source files.
Prints every violation and exits 1 if there is one.
"""
import os
import re
import subprocess
import sys

MAX_FILES = 25
# engine/CMakeLists.txt (WAFER_ENGINE_LAYERS) builds a library per layer in this order;
# check_build_layers.py checks that the build lets each see exactly the layers below it.
ENGINE_ORDER = ["base", "runtime", "quant", "gguf", "tokenizer", "kernels", "model", "compute",
                "decode"]
# engine/types.h sits just above base (value types only); engine/engine.h above decode;
# files at engine/ itself (the facade's implementation) may include any engine layer.
SERVER_ALLOWED = {
    "platform": set(),
    "config": set(),
    "document": set(),
    "prompt": {"document"},
    "pull": {"config", "platform"},
    "backends": {"document", "prompt"},
    "index": {"document", "prompt", "platform"},
    "service": {"config", "document", "prompt", "backends", "pull", "index", "platform"},
    "lsp": {"config", "document", "prompt", "backends", "pull", "index", "service"},
    "benchtool": {"config", "document", "lsp", "prompt", "backends", "service", "pull", "index", "platform"},
    "cli": {"config", "document", "lsp", "prompt", "backends", "service", "pull", "benchtool", "index", "platform"},
}
SERVER_ENGINE_OK = re.compile(r"^engine/(engine\.h|types\.h|base/)")
FIXTURE_SYMBOLS = ["FakeEngine", "write_synthetic_model", "install_fake_engine"]


def engine_rank(path):
    parts = path.split("/")
    if len(parts) == 2:
        if parts[1] == "types.h":
            return 0.5
        if parts[1] == "engine.h":
            return len(ENGINE_ORDER)
        return len(ENGINE_ORDER) + 1
    return ENGINE_ORDER.index(parts[1]) if parts[1] in ENGINE_ORDER else None


def sources(root, top):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith((".h", ".cpp", ".c")):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m:
                yield n, m.group(1)


def check(root):
    errors = []
    counts = {}
    for top in ("engine", "server"):
        for path in sources(root, top):
            folder = os.path.dirname(path)
            counts[folder] = counts.get(folder, 0) + 1
            for n, inc in includes(root, path):
                where = f"{path}:{n}: includes {inc}"
                if inc.startswith("tests/"):
                    errors.append(f"{where}: product code must not include test fixtures")
                if top == "engine":
                    if inc.startswith(("server/", "grammars/")):
                        errors.append(f"{where}: the engine knows nothing of the server or grammars")
                    elif inc.startswith("engine/"):
                        a, b = engine_rank(path), engine_rank(inc)
                        if a is None or b is None:
                            errors.append(f"{where}: not in a known engine layer")
                        elif b > a and not (path.split("/")[1] == inc.split("/")[1]):
                            errors.append(f"{where}: a lower engine layer includes a higher one")
                    continue
                layer = path.split("/")[1] if path.count("/") >= 2 else None
                if inc.startswith("engine/") and layer != "cli" and not SERVER_ENGINE_OK.match(inc):
                    errors.append(f"{where}: outside server/cli/ the server uses the engine through "
                                  "engine/engine.h, engine/types.h and engine/base/ only")
                if inc.startswith("server/") and layer is not None:
                    other = inc.split("/")[1]
                    if other != layer and other not in SERVER_ALLOWED.get(layer, set()):
                        errors.append(f"{where}: server/{layer}/ may not include server/{other}/")
    for folder, n in sorted(counts.items()):
        if n > MAX_FILES:
            errors.append(f"{folder}/: {n} source files (more than {MAX_FILES}): split it by responsibility")
    return errors


def check_binary(binary):
    out = subprocess.run(["nm", "-C", binary], capture_output=True, text=True, check=True).stdout
    return [f"{binary}: contains {s} (a test fixture)" for s in FIXTURE_SYMBOLS if s in out]


def main():
    root = sys.argv[1]
    errors = check(root)
    if len(sys.argv) > 2:
        errors += check_binary(sys.argv[2])
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} layering violation(s)")
        return 1
    print("layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
