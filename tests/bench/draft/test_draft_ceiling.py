#!/usr/bin/env python3
"""bench/draft/draft_ceiling.py: its expectations against closed forms and against a
simulation of the rounds it models, drawn at random."""

import random
import subprocess
import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bench" / "draft"))
import draft_ceiling  # noqa: E402


def simulated_times(step, verify_row, draft_token, p, predict, k, trials, seed):
    """The same rounds drawn one by one: each suggestion's time after its first token."""
    rng = random.Random(seed)
    times = []
    for _ in range(trials):
        generated, ms = 1, 0.0  # the first token comes from the prompt's pass
        while generated < predict:
            n = min(k, predict - generated - 1)
            accepted = 0
            while accepted < n and rng.random() < p:
                accepted += 1
            ms += step + n * (draft_token + verify_row)
            generated += 1 + accepted
        times.append(ms)
    return times


def simulated(step, verify_row, draft_token, p, predict, k, trials, seed):
    """Mean: the model alone's time over the mean suggestion's."""
    times = simulated_times(step, verify_row, draft_token, p, predict, k, trials, seed)
    return (predict - 1) * step / (sum(times) / len(times))


def simulated_median(step, verify_row, draft_token, p, predict, k, trials, seed):
    times = sorted(simulated_times(step, verify_row, draft_token, p, predict, k, trials, seed))
    return (predict - 1) * step / times[(len(times) - 1) // 2]


class DraftCeiling(unittest.TestCase):
    def test_no_room_to_draft(self):
        # Two tokens: the first from the prompt, the second from one plain step.
        for k in (None, 1, 4):
            ratio, _ = draft_ceiling.speedup(50, 2, 9, 0.7, 2, k=k)
            self.assertAlmostEqual(ratio, 1.0)

    def test_three_tokens_closed_form(self):
        s, v, d, p = 50.0, 2.0, 9.0, 0.7
        # One round of one drafted token, then a plain step unless it was accepted.
        expected = 2 * s / ((d + s + v) + (1 - p) * s)
        ratio, ks = draft_ceiling.speedup(s, v, d, p, 3, k=1)
        self.assertAlmostEqual(ratio, expected, places=12)
        best, ks = draft_ceiling.speedup(s, v, d, p, 3)
        self.assertAlmostEqual(best, max(expected, 1.0), places=12)
        self.assertEqual(ks[2], 1 if expected > 1 else 0)

    def test_free_certain_draft(self):
        # Every drafted token accepted, drafts and rows free: one pass per 1 + k tokens.
        ratio, _ = draft_ceiling.speedup(100, 0, 0, 0.999999, 16, max_draft=14)
        self.assertAlmostEqual(ratio, 15.0, places=3)

    def test_matches_simulation(self):
        for step, v, d, k in ((55.4, 2.1, 9.3, 3), (252.7, 7.3, 9.3, 5)):
            exact, _ = draft_ceiling.speedup(step, v, d, 0.7, 16, k=k)
            drawn = simulated(step, v, d, 0.7, 16, k, trials=40000, seed=7)
            self.assertAlmostEqual(exact, drawn, delta=0.01 * exact)

    def test_median_closed_form(self):
        s, v, d = 50.0, 2.0, 9.0
        lengths = [0, 0, 1]  # three tokens: one round drafting one, then a plain step if rejected
        # Accepted with p = 0.7: the median suggestion is the one round; with 0.3, a step more.
        self.assertAlmostEqual(draft_ceiling.median_speedup(s, v, d, 0.7, 3, lengths), 2 * s / (d + s + v))
        self.assertAlmostEqual(draft_ceiling.median_speedup(s, v, d, 0.3, 3, lengths), 2 * s / (d + s + v + s))

    def test_median_matches_simulation(self):
        for step, v, d, k in ((55.4, 2.1, 9.3, 3), (252.7, 7.3, 9.3, 5)):
            lengths = [min(k, r - 1) if r else 0 for r in range(16)]
            exact = draft_ceiling.median_speedup(step, v, d, 0.7, 16, lengths)
            drawn = simulated_median(step, v, d, 0.7, 16, k, trials=40001, seed=11)
            self.assertAlmostEqual(exact, drawn, delta=0.01 * exact)
            # A suggestion's time is skewed: the median one is faster than the mean.
            self.assertGreater(exact, draft_ceiling.speedup(step, v, d, 0.7, 16, k=k)[0])

    def test_best_beats_every_fixed_length(self):
        best, _ = draft_ceiling.speedup(55.4, 2.1, 9.3, 0.7, 16)
        for k in range(1, 9):
            self.assertGreaterEqual(best + 1e-12, draft_ceiling.speedup(55.4, 2.1, 9.3, 0.7, 16, k=k)[0])

    def test_command_line(self):
        out = subprocess.run([sys.executable, str(REPO / "bench" / "draft" / "draft_ceiling.py"), "--step", "252.7",
                              "--verify-row", "7.3", "--draft-token", "9.3"], capture_output=True, text=True, check=True)
        lines = out.stdout.splitlines()
        self.assertIn("k = 5", lines[6])
        best = float(lines[-1].split()[3].rstrip("x"))
        median = float(lines[-1].split()[4].rstrip("x"))
        self.assertGreater(median, best)
        self.assertAlmostEqual(best, draft_ceiling.speedup(252.7, 7.3, 9.3, 0.7, 16)[0], places=3)
        bad = subprocess.run([sys.executable, str(REPO / "bench" / "draft" / "draft_ceiling.py"), "--step", "0",
                              "--verify-row", "1", "--draft-token", "1"], capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)


if __name__ == "__main__":
    unittest.main()
