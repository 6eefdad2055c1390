"""Byte-level BPE tokenizer (train + encode + decode) compatible with llama.cpp's `gpt2` model.

The vocabulary is GPT-2 style: every byte is a token (written through GPT-2's byte->unicode
map, so a space is 'Ġ' and a newline 'Ċ'), merges are learned from the corpus, and special
tokens come last. Text is first split by the `qwen2` pre-tokenizer of llama.cpp (the regex
below); BPE then runs inside each piece, applying the lowest-ranked merge first, exactly as
llama.cpp's llm_tokenizer_bpe does. The vocabulary is stored in GGUF metadata by
export_gguf.py (tokenizer.ggml.model = gpt2, tokenizer.ggml.pre = qwen2).

Python's `re` lacks \\p{L}/\\p{N}: \\p{N} is an explicit class of every code point in a Unicode
N* category, \\p{L} is "\\w but not N* and not '_'" (Python's \\w is letters + numbers + '_').

Usage: /usr/bin/python3 tools/train/bpe.py [--corpus DIR] [--vocab 4096] [--out tokenizer.json]
"""

from __future__ import annotations

import argparse
import collections
import heapq
import json
import re
import sys
import unicodedata
from pathlib import Path

SPECIAL_TOKENS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                  "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"]

# llama.cpp's qwen2 pre-tokenizer:
#   (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}
#   | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+


def _number_class() -> str:
    """Ranges of all code points whose Unicode category is Nd, Nl or No, for a [...] class."""
    out, start, prev = [], None, None
    for cp in range(0x110000):
        if unicodedata.category(chr(cp))[0] == "N":
            if start is None:
                start = cp
            prev = cp
        elif start is not None:
            out.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev > start else ""))
            start = None
    return "".join(out)


_NUM = _number_class()
_L = rf"[^\W_{_NUM}]"                  # letter: \w minus numbers minus '_'
_N = rf"[{_NUM}]"                       # number
_NOT_LN_CRLF = r"(?:[^\w\r\n]|_)"     # neither letter nor number nor CR/LF
_NOT_LN_SPACE = r"(?:[^\s\w]|_)"       # neither letter nor number nor whitespace
PRETOKENIZE = re.compile(
    r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
    rf"|{_NOT_LN_CRLF}?{_L}+"
    rf"|{_N}"
    rf"| ?{_NOT_LN_SPACE}+[\r\n]*"
    r"|\s*[\r\n]+"
    r"|\s+(?!\S)"
    r"|\s+")


def pretokenize(text: str) -> list[str]:
    return PRETOKENIZE.findall(text)


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    mapping = {b: chr(b) for b in keep}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


BYTE_TO_CHAR = bytes_to_unicode()
CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}


def to_symbols(piece: str) -> str:
    return "".join(BYTE_TO_CHAR[b] for b in piece.encode("utf-8"))


def train(texts, vocab_size: int, log=print) -> list[tuple[str, str]]:
    """Learn vocab_size - 256 - len(SPECIAL_TOKENS) merges from an iterable of texts.

    Counts pre-tokenized pieces, then repeatedly merges the most frequent adjacent pair
    (ties broken by the pair's strings, so the result is deterministic), updating pair
    counts only for the words that contain the merged pair.
    """
    counts: collections.Counter[str] = collections.Counter()
    for text in texts:
        counts.update(pretokenize(text))
    words = [list(to_symbols(w)) for w in counts]
    freqs = list(counts.values())
    n_merges = vocab_size - 256 - len(SPECIAL_TOKENS)

    pair_count: collections.Counter[tuple[str, str]] = collections.Counter()
    where: dict[tuple[str, str], set[int]] = collections.defaultdict(set)
    for i, (w, f) in enumerate(zip(words, freqs)):
        for a, b in zip(w, w[1:]):
            pair_count[(a, b)] += f
            where[(a, b)].add(i)

    # Max-heap with lazy deletion: entries are (-count, pair); stale ones are skipped.
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)
    merges: list[tuple[str, str]] = []
    while len(merges) < n_merges and heap:
        neg, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -neg or -neg <= 0:
            continue
        merges.append(pair)
        merged = pair[0] + pair[1]
        changed: collections.Counter[tuple[str, str]] = collections.Counter()
        for i in list(where[pair]):
            w, f = words[i], freqs[i]
            for a, b in zip(w, w[1:]):
                changed[(a, b)] -= f
            out, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == pair[0] and w[j + 1] == pair[1]:
                    out.append(merged)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            words[i] = out
            for a, b in zip(out, out[1:]):
                changed[(a, b)] += f
                where[(a, b)].add(i)
        for p, delta in changed.items():
            if delta:
                pair_count[p] += delta
                if pair_count[p] > 0:
                    heapq.heappush(heap, (-pair_count[p], p))
        del pair_count[pair]
        where.pop(pair, None)
        if len(merges) % 500 == 0:
            log(f"bpe: {len(merges)}/{n_merges} merges, last {merged!r} x{-neg}")
    return merges


class Tokenizer:
    """Vocabulary + merges; encodes text the way llama.cpp's gpt2/qwen2 tokenizer does."""

    def __init__(self, merges: list[tuple[str, str]], tokens: list[str] | None = None,
                 token_type: list[int] | None = None):
        """Our own vocabulary (bytes, then one token per merge, then SPECIAL_TOKENS) from
        merges alone, or any GPT-2-style vocabulary given as tokens + token_type."""
        self.merges = merges
        if tokens is None:
            tokens = [BYTE_TO_CHAR[b] for b in range(256)]
            tokens += [a + b for a, b in merges]
            tokens += SPECIAL_TOKENS
            token_type = [1] * (len(tokens) - len(SPECIAL_TOKENS)) + [3] * len(SPECIAL_TOKENS)
        self.tokens = tokens
        self.token_type = token_type or [1] * len(tokens)
        self.id_of = {}
        for i, t in enumerate(self.tokens):
            if self.token_type[i] == 1:
                self.id_of.setdefault(t, i)
        self.rank = {pair: r for r, pair in enumerate(merges)}
        self.cache: dict[str, list[int]] = {}

    @property
    def n_vocab(self) -> int:
        return len(self.tokens)

    def special(self, name: str) -> int:
        for i in range(len(self.tokens) - 1, -1, -1):   # specials sit at the end
            if self.tokens[i] == name and self.token_type[i] != 1:
                return i
        raise KeyError(name)

    def _bpe(self, piece: str) -> list[int]:
        hit = self.cache.get(piece)
        if hit is not None:
            return hit
        syms = list(to_symbols(piece))
        while len(syms) > 1:
            best, best_rank = -1, None
            for k in range(len(syms) - 1):
                r = self.rank.get((syms[k], syms[k + 1]))
                if r is not None and (best_rank is None or r < best_rank):
                    best, best_rank = k, r
            if best < 0:
                break
            syms[best:best + 2] = [syms[best] + syms[best + 1]]
        ids = [self.id_of[s] for s in syms]
        if len(self.cache) < 500_000:
            self.cache[piece] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        """Plain text -> ids (special-token text is not parsed, like parse_special=false)."""
        out: list[int] = []
        for piece in pretokenize(text):
            out.extend(self._bpe(piece))
        return out

    def decode_bytes(self, ids) -> bytes:
        out = bytearray()
        for i in ids:
            if self.token_type[i] != 1:
                out += self.tokens[i].encode("utf-8")
            else:
                out += bytes(CHAR_TO_BYTE[c] for c in self.tokens[i])
        return bytes(out)

    def decode(self, ids) -> str:
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"pre": "qwen2", "merges": [" ".join(m) for m in self.merges]},
                                   ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> "Tokenizer":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls([tuple(m.split(" ", 1)) for m in data["merges"]])


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import corpus
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=corpus.DEFAULT_CACHE)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--out", type=Path, default=None, help="default: CORPUS/tokenizer.json")
    args = ap.parse_args()
    docs = corpus.read_jsonl(args.corpus / "train.jsonl")
    merges = train((d["text"] for d in docs), args.vocab)
    tok = Tokenizer(merges)
    out = args.out or args.corpus / "tokenizer.json"
    tok.save(out)
    held = corpus.read_jsonl(args.corpus / "heldout.jsonl")
    n_bytes = sum(len(d["text"].encode()) for d in held)
    n_tok = sum(len(tok.encode(d["text"])) for d in held)
    print(f"vocab {tok.n_vocab}, held-out {n_bytes / n_tok:.2f} bytes/token, written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
