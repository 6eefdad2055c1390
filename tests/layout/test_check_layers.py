#!/usr/bin/env python3
"""The layering check itself: a small tree with one violation of each rule must fail with
each one named, and the same tree without them must pass."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402


def write(root, path, *includes):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.writelines(f'#include "{i}"\n' for i in includes)


def main():
    with tempfile.TemporaryDirectory() as clean, tempfile.TemporaryDirectory() as bad:
        for root in (clean, bad):
            write(root, "engine/base/result.h")
            write(root, "engine/types.h", "engine/base/result.h")
            write(root, "engine/engine.h", "engine/types.h")
            write(root, "engine/decode/session.h", "engine/compute/kv_cache.h", "engine/types.h")
            write(root, "engine/compute/kv_cache.h", "engine/base/result.h")
            write(root, "server/lsp/jsonrpc.h", "engine/base/result.h")
            write(root, "server/lsp/lsp_server.h", "server/lsp/jsonrpc.h", "engine/engine.h")
            write(root, "server/cli/cmd_info.cpp", "engine/compute/kv_cache.h", "server/lsp/lsp_server.h")
        assert check_layers.check(clean) == [], check_layers.check(clean)
        write(bad, "engine/compute/forward.h", "engine/decode/session.h")       # upward in the engine
        write(bad, "engine/base/log.h", "server/lsp/jsonrpc.h")                 # engine -> server
        write(bad, "server/service/stats.h", "engine/compute/kv_cache.h")        # deep engine include
        write(bad, "server/prompt/context.h", "server/lsp/protocol.h")         # prompt -> the wire
        write(bad, "server/backends/remote_backend.cpp", "server/config/options.h")  # backends -> settings
        write(bad, "server/service/fake.cpp", "tests/support/fixtures/fake_engine.h")  # fixture
        for i in range(26):
            write(bad, f"server/prompt/f{i}.h")                                 # folder too large
        errors = check_layers.check(bad)
        expect = ["lower engine layer includes a higher", "knows nothing of the server",
                  "engine/engine.h, engine/types.h and engine/base/ only",
                  "server/prompt/ may not include server/lsp/", "server/backends/ may not include server/config/",
                  "must not include test fixtures",
                  "server/prompt/: 27 source files"]
        for e in expect:
            assert any(e in x for x in errors), f"missing: {e}\n" + "\n".join(errors)
        assert len(errors) == len(expect), "\n".join(errors)
    print("check_layers: every rule caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
