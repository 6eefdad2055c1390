"""Train wafer's bundled model: FIM + left-to-right objective, AdamW, cosine schedule.

Resumable: every --ckpt-minutes the model, optimizer, step and RNG state go to
RUN/ckpt.pt (written atomically); rerunning the same command continues from there.
Logs train loss, throughput and held-out loss (plain and FIM-middle) to stdout.

Usage (one core, leaving the other to the rest of the machine):
  /usr/bin/python3 tools/train/train.py --corpus CACHE --run RUN --steps N [--bench 20]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
import fim  # noqa: E402
from bpe import Tokenizer  # noqa: E402
from model import Config, Llama  # noqa: E402


def token_stream(docs: list[dict], tok: Tokenizer, cache: Path) -> np.ndarray:
    """All documents tokenized and joined by <|endoftext|>, cached as .npy."""
    if cache.exists():
        return np.load(cache)
    eot = tok.special("<|endoftext|>")
    out: list[int] = []
    for d in docs:
        out.extend(tok.encode(d["text"]))
        out.append(eot)
    arr = np.asarray(out, dtype=np.uint16)
    np.save(cache, arr)
    return arr


class Batcher:
    """Draws training batches: a mix of plain windows and FIM examples."""

    def __init__(self, docs, stream, tok, n_ctx, fim_rate, rng, spm_rate=0.1):
        self.texts = [d["text"] for d in docs]
        self.cum = [0]
        for t in self.texts:
            self.cum.append(self.cum[-1] + len(t))
        self.stream, self.tok, self.n_ctx, self.fim_rate, self.rng = stream, tok, n_ctx, fim_rate, rng
        self.spm_rate = spm_rate
        self.sp = fim.FimSpecials(tok)
        self.chars = int(n_ctx * 3.6)    # about n_ctx tokens of text

    def sample(self, want_fim: bool):
        while want_fim:
            text = fim.pick_text(self.texts, self.cum, self.rng, self.chars)
            s = fim.fim_sample(text, self.tok, self.sp, self.n_ctx, self.rng, self.spm_rate)
            if s is not None:
                return s
        return fim.plain_sample(self.stream, self.n_ctx, self.rng)

    def batch(self, n: int):
        xs, ys = [], []
        for _ in range(n):
            x, y = self.sample(self.rng.random() < self.fim_rate)
            xs.append(x)
            ys.append(y)
        return torch.tensor(xs, dtype=torch.long), torch.tensor(ys, dtype=torch.long)


def eval_set(docs, stream, tok, n_ctx, spm_rate, n=32, seed=1234):
    """Fixed held-out batches: (plain inputs, labels), (fim inputs, labels, middle-only labels)."""
    b = Batcher(docs, stream, tok, n_ctx, 0.0, random.Random(seed), spm_rate)
    plain = b.batch(n)
    xs, ys, ms = [], [], []
    for _ in range(n):
        x, y = b.sample(True)
        mask = fim.middle_mask(x, b.sp)
        xs.append(x)
        ys.append(y)
        ms.append([lab if m else fim.IGNORE for lab, m in zip(y, mask)])
    return plain, (torch.tensor(xs), torch.tensor(ys), torch.tensor(ms))


@torch.no_grad()
def evaluate(model, ev, chunk=8) -> dict:
    model.eval()

    def loss_of(x, y):
        tot, cnt = 0.0, 0
        for i in range(0, len(x), chunk):
            logits = model(x[i:i + chunk]).float()
            lab = y[i:i + chunk]
            tot += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), lab.reshape(-1),
                                   ignore_index=fim.IGNORE, reduction="sum").item()
            cnt += (lab != fim.IGNORE).sum().item()
        return tot / max(cnt, 1)

    (px, py), (fx, fy, fm) = ev
    out = {"plain": loss_of(px, py), "fim": loss_of(fx, fy), "fim_middle": loss_of(fx, fm)}
    model.train()
    return out


def progress(step, elapsed, args) -> float:
    """Fraction of the run done: by steps, or by training wall time with --minutes."""
    if args.minutes:
        return min(1.0, elapsed / (args.minutes * 60))
    return min(1.0, step / max(1, args.steps))


def lr_at(step, p, args):
    """Linear warmup over --warmup steps, then cosine decay to min_lr_frac over progress p."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    return args.lr * (args.min_lr_frac + (1 - args.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * p)))


def save_ckpt(path: Path, model, opt, step, elapsed, rng, args, cfg, history):
    tmp = path.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                "elapsed": elapsed,
                "rng": rng.getstate(), "torch_rng": torch.get_rng_state(),
                "args": vars(args) | {"corpus": str(args.corpus), "run": str(args.run)},
                "config": cfg.to_dict(), "history": history}, tmp)
    os.replace(tmp, path)


# PyTorch 1.13 frees its large activation buffers back to the system after every step, so
# glibc maps and page-faults them in again on the next one: at a 512-token context that made
# training 3.6x slower (215 vs 776 tokens/s). Keeping freed memory in the heap avoids it.
KEEP_HEAP = "glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"


def keep_heap() -> None:
    """Re-executes this script once with KEEP_HEAP set (glibc reads it only at start-up)."""
    if "glibc.malloc" not in os.environ.get("GLIBC_TUNABLES", ""):
        env = dict(os.environ, GLIBC_TUNABLES=KEEP_HEAP)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


def main() -> int:
    keep_heap()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=corpus.DEFAULT_CACHE)
    ap.add_argument("--run", type=Path, required=True, help="run directory (checkpoints, log)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--minutes", type=float, default=0.0,
                    help="train for this much wall time instead of --steps (cosine over time)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--min-lr-frac", type=float, default=0.1)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--fim-rate", type=float, default=0.6)
    ap.add_argument("--spm-rate", type=float, default=0.1,
                    help="fraction of FIM examples in SPM order (wafer prompts in PSM order)")
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--n-layer", type=int, default=6)
    ap.add_argument("--n-head", type=int, default=8)
    ap.add_argument("--n-kv-head", type=int, default=2)
    ap.add_argument("--d-ff", type=int, default=704)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bf16", action="store_true", help="bfloat16 autocast (AVX512-BF16 CPUs)")
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--ckpt-minutes", type=float, default=4.0)
    ap.add_argument("--bench", type=int, default=0, help="time N steps and exit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", type=Path,
                    help="start from this checkpoint's weights (same config except possibly --ctx; "
                         "fresh optimizer and schedule)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    args.run.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer.load(args.corpus / "tokenizer.json")
    train_docs = corpus.read_jsonl(args.corpus / "train.jsonl")
    held_docs = corpus.read_jsonl(args.corpus / "heldout.jsonl")
    t0 = time.time()
    train_stream = token_stream(train_docs, tok, args.corpus / "train_tokens.npy")
    held_stream = token_stream(held_docs, tok, args.corpus / "heldout_tokens.npy")
    print(f"tokens: train {len(train_stream):,} heldout {len(held_stream):,} "
          f"({time.time() - t0:.0f}s)", flush=True)

    cfg = Config(n_vocab=tok.n_vocab, n_ctx=args.ctx, d_model=args.d_model, n_layer=args.n_layer,
                 n_head=args.n_head, n_kv_head=args.n_kv_head, d_ff=args.d_ff)
    torch.manual_seed(args.seed)
    model = Llama(cfg)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    rng = random.Random(args.seed)
    step, history, elapsed = 0, [], 0.0
    ckpt = args.run / "ckpt.pt"
    if ckpt.exists() and not args.bench:
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, history, elapsed = state["step"], state["history"], state.get("elapsed", 0.0)
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        print(f"resumed at step {step}", flush=True)
    elif args.init:
        init = torch.load(args.init, map_location="cpu")
        # The context length may differ (RoPE tables are not weights): a longer-context
        # continuation of a shorter run.
        if {**init["config"], "n_ctx": cfg.n_ctx} != cfg.to_dict():
            print(f"--init {args.init}: config {init['config']} differs from {cfg.to_dict()}", flush=True)
            return 2
        model.load_state_dict(init["model"])
        print(f"initialised from {args.init}", flush=True)
    print(f"params {model.n_params():,} config {json.dumps(cfg.to_dict())}", flush=True)
    (args.run / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1) + "\n")

    batcher = Batcher(train_docs, train_stream, tok, args.ctx, args.fim_rate, rng, args.spm_rate)
    ev = eval_set(held_docs, held_stream, tok, args.ctx, args.spm_rate)
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16)
    last_ckpt = time.time()
    t_log, tok_log = time.time(), 0
    t_run = time.time() - elapsed       # elapsed training time survives a resume
    while (step < args.bench) if args.bench else progress(step, elapsed, args) < 1.0:
        if step % args.eval_every == 0 and not args.bench:
            e = evaluate(model, ev)
            history.append({"step": step, "tokens": step * args.batch * args.ctx, **e})
            print(f"eval step {step}: plain {e['plain']:.4f} fim {e['fim']:.4f} "
                  f"fim_middle {e['fim_middle']:.4f}", flush=True)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, progress(step, elapsed, args), args)
        x, y = batcher.batch(args.batch)
        with autocast:
            logits = model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, cfg.n_vocab), y.reshape(-1),
                               ignore_index=fim.IGNORE)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        elapsed = time.time() - t_run
        tok_log += args.batch * args.ctx
        if step % 10 == 0:
            dt = time.time() - t_log
            print(f"step {step} loss {loss.item():.4f} lr {opt.param_groups[0]['lr']:.2e} "
                  f"{tok_log / dt:.0f} tok/s elapsed {elapsed / 60:.1f} min", flush=True)
            t_log, tok_log = time.time(), 0
        if not args.bench and time.time() - last_ckpt > args.ckpt_minutes * 60:
            save_ckpt(ckpt, model, opt, step, elapsed, rng, args, cfg, history)
            last_ckpt = time.time()
    if args.bench:
        return 0
    e = evaluate(model, ev)
    history.append({"step": step, "tokens": step * args.batch * args.ctx, **e})
    print(f"eval step {step}: plain {e['plain']:.4f} fim {e['fim']:.4f} "
          f"fim_middle {e['fim_middle']:.4f}", flush=True)
    save_ckpt(ckpt, model, opt, step, elapsed, rng, args, cfg, history)
    torch.save({"model": model.state_dict(), "config": cfg.to_dict(), "history": history,
                "steps": step, "tokens": step * args.batch * args.ctx, "minutes": elapsed / 60,
                "args": vars(args) | {"corpus": str(args.corpus), "run": str(args.run)}},
               args.run / "final.pt")
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
