"""Training samples: plain left-to-right windows and fill-in-the-middle (FIM) examples.

FIM layouts (the ones Qwen2.5-Coder's tokens and llama.cpp's infill use):
  PSM: <|fim_prefix|> P <|fim_suffix|> S <|fim_middle|> M <|endoftext|>
  SPM: <|fim_suffix|> S <|fim_prefix|> P <|fim_middle|> M <|endoftext|>
(the SPM layout is llama.cpp's `spm_infill` order). Prefix, suffix and middle are tokenized
separately, as an editor client would send them. Middle spans are mostly aligned to lines
or indented blocks, because completions are; some start mid-line (cursor inside a line) and
a few are arbitrary character spans.
"""

from __future__ import annotations

import random

from bpe import Tokenizer

IGNORE = -100   # label for padding (no loss)


class FimSpecials:
    def __init__(self, tok: Tokenizer):
        self.pre = tok.special("<|fim_prefix|>")
        self.suf = tok.special("<|fim_suffix|>")
        self.mid = tok.special("<|fim_middle|>")
        self.eot = tok.special("<|endoftext|>")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _cursor(line: str, rng: random.Random, inside_rate: float) -> int:
    """Column of an editor cursor on a non-blank line: after the indentation (where the
    editor leaves it on a new line) or, with inside_rate, strictly inside the text."""
    lead, body = _indent(line), len(line.rstrip())
    if body - lead > 1 and rng.random() < inside_rate:
        return rng.randrange(lead + 1, body)
    return lead


def choose_middle(lines: list[str], rng: random.Random) -> tuple[int, int]:
    """Character span [a, b) of the middle inside "".join(lines) (lines keep their '\n').

    The span mimics what an editor asks for: the cursor sits on a non-blank line, after the
    indentation or inside the text (never on whitespace the editor already inserted, so the
    middle starts with code, as the evaluation's targets do), and the middle runs to the end
    of that line, a few lines further, or the end of the indented block the line opens. A
    few spans start at column 0 or are arbitrary, so the model also sees those layouts.
    """
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    n = len(lines)
    kind = rng.random()
    if kind >= 0.95:                          # arbitrary character span
        a = rng.randrange(starts[-1])
        return a, min(starts[-1], a + 1 + int(rng.expovariate(1 / 80.0)))
    i = rng.randrange(n)
    for _ in range(8):                        # prefer a line with code on it
        if lines[i].strip():
            break
        i = rng.randrange(n)
    col = 0 if kind >= 0.9 else _cursor(lines[i], rng, 0.5)
    if kind < 0.5:                            # rest of the line
        j = i + 1
    elif kind < 0.7:                          # rest of the line and a few more
        j = i + 2 + int(rng.expovariate(1 / 1.5))
    else:                                     # the block line i opens (or whole lines)
        base = _indent(lines[i])
        j = i + 1
        while j < n and (not lines[j].strip() or _indent(lines[j]) > base) and j - i < 16:
            j += 1
    return starts[i] + col, starts[min(n, j)]


def fim_sample(text: str, tok: Tokenizer, sp: FimSpecials, n_tokens: int,
               rng: random.Random, spm_rate: float = 0.25) -> tuple[list[int], list[int]] | None:
    """One FIM example of exactly n_tokens inputs + labels (padding labelled IGNORE)."""
    lines = text.splitlines(keepends=True)
    if len(lines) < 3:
        return None
    a, b = choose_middle(lines, rng)
    if b <= a:
        return None
    joined = "".join(lines)
    p_ids, m_ids, s_ids = tok.encode(joined[:a]), tok.encode(joined[a:b]), tok.encode(joined[b:])
    m_ids = m_ids[: n_tokens // 2] + [sp.eot]
    room = n_tokens + 1 - 3 - len(m_ids)
    # Keep the context nearest the cursor: the end of the prefix, the start of the suffix.
    s_keep = min(len(s_ids), max(room // 3, room - len(p_ids)))
    s_ids = s_ids[:s_keep]
    p_ids = p_ids[max(0, len(p_ids) - (room - len(s_ids))):]
    if rng.random() < spm_rate:
        seq = [sp.suf] + s_ids + [sp.pre] + p_ids + [sp.mid] + m_ids
    else:
        seq = [sp.pre] + p_ids + [sp.suf] + s_ids + [sp.mid] + m_ids
    labels = seq[1:] + [IGNORE]
    pad = n_tokens + 1 - len(seq)
    seq = seq + [sp.eot] * pad
    labels = labels[: len(seq) - pad - 1] + [IGNORE] * (pad + 1)
    return seq[:n_tokens], labels[:n_tokens]


def middle_mask(inputs: list[int], sp: FimSpecials) -> list[bool]:
    """True for positions whose *label* is a middle token (for middle-only loss)."""
    out, inside = [], False
    for t in inputs:
        if t == sp.mid:
            inside = True
        out.append(inside)
        if t == sp.eot and inside:
            inside = False
    return out


def plain_sample(stream, n_tokens: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """A contiguous window of the token stream (documents joined by <|endoftext|>)."""
    start = rng.randrange(len(stream) - n_tokens - 1)
    window = stream[start: start + n_tokens + 1].tolist()
    return window[:-1], window[1:]


def pick_text(docs: list[str], cum: list[int], rng: random.Random, n_chars: int) -> str:
    """A random slice of about n_chars characters, starting at a line start, from a document
    chosen with probability proportional to its length."""
    k = rng.randrange(cum[-1])
    lo, hi = 0, len(cum) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid + 1] <= k:
            lo = mid + 1
        else:
            hi = mid
    text = docs[lo]
    if len(text) <= n_chars:
        return text
    start = rng.randrange(len(text) - n_chars // 2)
    nl = text.rfind("\n", 0, start)
    start = nl + 1 if nl >= 0 else 0
    return text[start: start + n_chars]
