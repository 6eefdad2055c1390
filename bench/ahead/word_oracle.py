#!/usr/bin/env python3
"""Writes a fake-engine script (tests/support/fixtures/fake_engine.h) that is an always-right "oracle" for
one source file: at every line head it suggests the rest of the current word (with the
blanks before it). Replaying the same file with `wafer bench` then has many exact
suggestions the simulated user accepts, and after each accept the next word is what
ahead-of-cursor decoding prepares -- so the share of post-accept requests answered without
the engine can be measured independently of a model's quality:

  bench/ahead/word_oracle.py SOURCE oracle.json [FIRST_TOKEN_MS TOKEN_MS]
  wafer bench replay SOURCE --start-line N --out r.json -- wafer lsp --fake-engine oracle.json

Requests with trigger "accept" in r.json are the post-accept ones; their served_by says
"ahead" when answered from the prepared continuation.
"""
import json
import re
import sys


def main(argv):
    if len(argv) not in (3, 5):
        sys.exit(__doc__)
    source, out = argv[1], argv[2]
    first_ms, token_ms = (float(argv[3]), float(argv[4])) if len(argv) == 5 else (40.0, 15.0)
    rules = {}
    with open(source, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            for k in range(1, len(line)):
                word = re.match(r"\s*\S+", line[k:])
                if word:
                    rules.setdefault("\n" + line[:k], word.group(0))
    # The fake engine takes the first rule whose key ends the prefix: longest keys first.
    ordered = sorted(rules.items(), key=lambda kv: -len(kv[0]))
    script = {"rules": [{"prefix_ends_with": k, "text": v} for k, v in ordered], "text": "",
              "first_token_ms": first_ms, "token_ms": token_ms, "chunk_bytes": 4}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(script, f)
    print(f"{len(ordered)} rules -> {out}")


if __name__ == "__main__":
    main(sys.argv)
