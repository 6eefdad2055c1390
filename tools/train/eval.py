"""Held-out completion metrics for the bundled model, against a trivial baseline.

Task: at a random cursor position in a held-out file, complete the rest of the current line.
The cursor is either at the first non-blank column of a line (the "next line" case, after
the editor auto-indented) or at a random column inside the line's text. The model gets a FIM
prompt — <|fim_prefix|> text before the cursor <|fim_suffix|> text from the next line on
<|fim_middle|> — and decodes greedily until a newline or <|endoftext|>.

Metrics: exact match of the completed line (trailing whitespace ignored) and first-token
accuracy: the first token of the predicted remainder equals the first token of the true
remainder, both texts tokenized the same way (first_token), for the model and the baseline
alike; an empty prediction never matches. The model's raw first sampled token is reported
separately (model_raw_first_token) since it can split a word differently.

Baseline "repeat the most similar earlier line": among the earlier lines of the file that
start with what is already typed on the cursor's line, take the one whose preceding line is
most similar (difflib ratio) to the line above the cursor (ties: the most recent one), and
predict its remainder.

Usage: /usr/bin/python3 tools/train/eval.py CKPT [--corpus DIR] [--n 200] [--json OUT]
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
from bpe import Tokenizer  # noqa: E402


@dataclass
class Case:
    lines: list[str]    # the file's lines, without '\n'
    row: int            # cursor line
    col: int            # cursor column
    path: str

    @property
    def typed(self) -> str:
        return self.lines[self.row][: self.col]

    @property
    def target(self) -> str:
        return self.lines[self.row][self.col:]

    @property
    def prefix(self) -> str:
        return "".join(line + "\n" for line in self.lines[: self.row]) + self.typed

    @property
    def suffix(self) -> str:
        return "\n".join(self.lines[self.row + 1:])


def make_cases(docs: list[dict], n: int, seed: int = 7) -> list[Case]:
    """n cursor positions with a non-blank remainder, from documents picked by size."""
    rng = random.Random(seed)
    docs = [d for d in docs if d["text"].count("\n") >= 5]
    weights = [len(d["text"]) for d in docs]
    cases: list[Case] = []
    while len(cases) < n:
        d = rng.choices(docs, weights)[0]
        lines = d["text"].split("\n")
        row = rng.randrange(1, len(lines))
        line = lines[row]
        if not line.strip() or len(line) > 200:
            continue
        start = len(line) - len(line.lstrip())
        col = start if rng.random() < 0.5 else rng.randrange(start, len(line.rstrip()))
        cases.append(Case(lines, row, col, d["path"]))
    return cases


def baseline(case: Case) -> str:
    typed, above = case.typed, case.lines[case.row - 1]
    best, best_score = "", -1.0
    for k in range(case.row - 1, 0, -1):
        cand = case.lines[k]
        if len(cand) <= len(typed) or not cand.startswith(typed) or not cand[len(typed):].strip():
            continue
        score = difflib.SequenceMatcher(None, case.lines[k - 1], above).ratio()
        if score > best_score:
            best, best_score = cand[len(typed):], score
    return best


class ModelCompleter:
    """Greedy FIM decoding with the PyTorch model (prompt once, then one token per step)."""

    def __init__(self, ckpt: Path, tok: Tokenizer, max_prefix=None, max_suffix=48, max_new=40,
                 layout="psm", heal=False, cache=0.0, cache_min=2, cache_scope="prompt"):
        import torch
        from model import Config, Llama
        state = torch.load(ckpt, map_location="cpu")
        self.torch = torch
        self.model = Llama(Config(**state["config"]))
        self.model.load_state_dict(state["model"])
        self.model.eval()
        self.tok = tok
        self.pre, self.suf = tok.special("<|fim_prefix|>"), tok.special("<|fim_suffix|>")
        self.mid, self.eot = tok.special("<|fim_middle|>"), tok.special("<|endoftext|>")
        # Prompt and completion must fit the context the model was trained with.
        n_ctx = self.model.cfg.n_ctx
        room = n_ctx - 3 - max_suffix - max_new
        self.max_prefix = room if max_prefix is None else min(max_prefix, room)
        self.max_suffix, self.max_new = max_suffix, max_new
        self.layout = layout
        self.heal = heal
        self.cache, self.cache_min, self.cache_scope = cache, cache_min, cache_scope
        # Bytes of every ordinary token (None for special ones), for token healing.
        self.token_bytes = [tok.decode_bytes([i]) if tok.token_type[i] == 1 else None
                            for i in range(tok.n_vocab)]
        self.allowed_cache: dict[bytes, list[int]] = {}

    def prompt(self, case: Case) -> tuple[list[int], bytes]:
        """(prompt ids, healed bytes): with token healing the prefix's last token is taken
        off the prompt and its bytes are what the completion must start with."""
        p = self.tok.encode(case.prefix)[-self.max_prefix:]
        s = self.tok.encode(case.suffix)[: self.max_suffix]
        healed = b""
        if self.heal and p:
            healed, p = self.tok.decode_bytes(p[-1:]), p[:-1]
        self.stream = s + [self.eot] + p  # the text tokens the cache model copies from
        if self.cache > 0 and self.cache_scope != "prompt":
            # "file": the file within 64 KiB of the cursor (what wafer's daemon sends a model
            # with a copy predictor: the window plus 64 KiB each side; the baseline searches all
            # of the file before the cursor); "window": 60 lines before the cursor, 20 after
            # (the daemon's prompt window for larger models).
            before, after = case.prefix[-65536:], case.suffix[:65536]
            if self.cache_scope == "window":
                before = "".join(l + "\n" for l in case.lines[max(0, case.row - 60): case.row]) + case.typed
                after = "\n".join(case.lines[case.row + 1: case.row + 21])
            whole = self.tok.encode(before)
            if self.heal and whole:
                whole = whole[:-1]
            self.stream = self.tok.encode(after) + [self.eot] + whole
        if self.layout == "spm":
            return [self.suf] + s + [self.pre] + p + [self.mid], healed
        if self.layout == "plain":      # no suffix: a left-to-right continuation
            return [self.eot] + p, healed
        return [self.pre] + p + [self.suf] + s + [self.mid], healed

    def mix_cache(self, logits, seq: list[int]):
        """Log of (1 - w) p_model + w p_cache, where p_cache is the distribution of the
        tokens that followed the longest earlier repeat (L >= cache_min tokens) of seq's end,
        and w = L / (L + cache)."""
        n = len(seq)
        best, follow = 0, []
        for j in range(n - 1):   # seq[..j] ends like seq[..n-1]: match length
            L = 0
            while L <= j and L < 32 and seq[j - L] == seq[n - 1 - L]:
                L += 1
            if L > best:
                best, follow = L, [seq[j + 1]]
            elif L == best and L > 0:
                follow.append(seq[j + 1])
        if best < self.cache_min:
            return logits
        torch = self.torch
        p = torch.softmax(logits.float(), -1)
        w = best / (best + self.cache)
        pc = torch.zeros_like(p)
        for t in follow:
            pc[t] += 1.0 / len(follow)
        return torch.log((1 - w) * p + w * pc + 1e-30)

    def allowed(self, need: bytes) -> list[int]:
        """Tokens that agree with the bytes still to be regenerated: they start with them,
        or are a prefix of them (the constraint then continues on the next token)."""
        hit = self.allowed_cache.get(need)
        if hit is None:
            hit = [i for i, b in enumerate(self.token_bytes)
                   if b and (b.startswith(need) or need.startswith(b))]
            self.allowed_cache[need] = hit
        return hit

    def complete(self, case: Case) -> tuple[str, int]:
        """(predicted rest of line, first predicted token id)."""
        ids, healed = self.prompt(case)
        need = healed
        out: list[int] = []
        cache: list = []
        with self.torch.no_grad():
            logits = self.model.decode_step(self.torch.tensor([ids]), cache)[0]
            for _ in range(self.max_new):
                if out:
                    logits = self.model.decode_step(self.torch.tensor([out[-1:]]), cache)[0]
                if self.cache > 0:
                    logits = self.mix_cache(logits, self.stream + out)
                if need:
                    cand = self.allowed(need)
                    t = cand[int(logits[cand].argmax())]
                    b = self.token_bytes[t]
                    need = need[len(b):] if need.startswith(b) else b""
                else:
                    t = int(logits.argmax())
                    if t == self.eot:
                        break
                out.append(t)
                if b"\n" in self.tok.decode_bytes(out)[len(healed):]:
                    break
        text = self.tok.decode_bytes(out)[len(healed):].decode("utf-8", errors="replace")
        return text.split("\n")[0], (out[0] if out else self.eot)


def first_token(tok: Tokenizer, text: str) -> int | None:
    """First token of a predicted or true remainder of a line; None for an empty one."""
    return tok.encode(text + "\n")[0] if text else None


def first_token_hit(tok: Tokenizer, predicted: str, truth: str) -> bool:
    want = first_token(tok, truth)
    return want is not None and first_token(tok, predicted) == want


def run(cases, tok, completer) -> dict:
    res = {"n": len(cases), "model_exact": 0, "model_first_token": 0, "baseline_exact": 0,
           "baseline_first_token": 0, "model_raw_first_token": 0, "examples": [], "by_kind": {}}
    t0 = time.time()
    for i, c in enumerate(cases):
        truth = c.target.rstrip()
        want = first_token(tok, c.target)
        b = baseline(c)
        res["baseline_exact"] += b.rstrip() == truth
        res["baseline_first_token"] += first_token_hit(tok, b, c.target)
        kind = res["by_kind"].setdefault(
            "line_start" if not c.typed.strip() else "mid_line", {"n": 0, "model_exact": 0,
                                                                  "baseline_exact": 0})
        kind["n"] += 1
        kind["baseline_exact"] += b.rstrip() == truth
        if completer is not None:
            m, t = completer.complete(c)
            res["model_exact"] += m.rstrip() == truth
            res["model_first_token"] += first_token_hit(tok, m, c.target)
            res["model_raw_first_token"] += t == want
            kind["model_exact"] += m.rstrip() == truth
            if len(res["examples"]) < 12:
                res["examples"].append({"path": c.path, "typed": c.typed, "truth": truth,
                                        "model": m, "baseline": b})
        if (i + 1) % 25 == 0:
            print(f"  {i + 1}/{len(cases)} ({time.time() - t0:.0f}s)", flush=True)
    for k in ("model_exact", "model_first_token", "model_raw_first_token", "baseline_exact",
              "baseline_first_token"):
        res[k + "_rate"] = res[k] / len(cases)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint", type=Path, nargs="?", help="omit for baseline only")
    ap.add_argument("--corpus", type=Path, default=corpus.DEFAULT_CACHE)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--layout", choices=("psm", "spm", "plain"), default="psm",
                    help="prompt order: PSM, SPM (llama.cpp's spm_infill) or prefix only")
    ap.add_argument("--heal", action="store_true",
                    help="token healing: regenerate the prefix's last token, constrained to its text")
    ap.add_argument("--cache", type=float, default=0.0,
                    help="mix in a copy (cache) model: weight L/(L+CACHE) after an L-token repeat; 0: off")
    ap.add_argument("--cache-min", type=int, default=2, help="shortest repeat the cache model uses")
    ap.add_argument("--cache-scope", choices=("prompt", "window", "file"), default="prompt",
                    help="what the cache model copies from: the prompt, 60 lines before and 20 "
                         "after, or the file within 64 KiB of the cursor (as wafer does)")
    args = ap.parse_args()
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    tok = Tokenizer.load(args.corpus / "tokenizer.json")
    cases = make_cases(corpus.read_jsonl(args.corpus / "heldout.jsonl"), args.n, args.seed)
    completer = (ModelCompleter(args.checkpoint, tok, layout=args.layout, heal=args.heal, cache=args.cache,
                                cache_min=args.cache_min, cache_scope=args.cache_scope)
                 if args.checkpoint else None)
    res = run(cases, tok, completer)
    print(f"cases {res['n']}: exact match model {res['model_exact_rate']:.3f} "
          f"baseline {res['baseline_exact_rate']:.3f}; first token model "
          f"{res['model_first_token_rate']:.3f} baseline {res['baseline_first_token_rate']:.3f}; "
          f"by cursor kind {res['by_kind']}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
