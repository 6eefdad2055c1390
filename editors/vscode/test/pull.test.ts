import { describe, expect, it } from 'vitest';
import { DOWNLOAD, NOT_NOW, offerPull, pullPercent, suggestedPull, type PullDeps } from '../src/pull';

const bundledStats = {
  model: { name: 'wafer-tiny', path: '/x/models/wafer-tiny-code-q8_0.gguf', source: 'bundled', suggested: { name: 'qwen2.5-coder-1.5b', bytes: 1_900_000_000 } },
};

// Fakes of VS Code and of the `wafer pull` process: what they were asked, and scripted answers.
function deps(opts: { answer?: string | undefined; lines?: string[]; code?: number | null; cancelAfter?: number } = {}) {
  const seen = {
    asked: [] as string[],
    actions: [] as string[][],
    progress: [] as [number, string][],
    titles: [] as string[],
    pulled: [] as string[],
    modelsChanged: 0,
    info: [] as string[],
    error: [] as string[],
  };
  let offered = false;
  let cancelled = false;
  const d: PullDeps = {
    ask: async (message, actions) => {
      seen.asked.push(message);
      seen.actions.push(actions);
      return opts.answer;
    },
    withProgress: async (title, task) => {
      seen.titles.push(title);
      await task(
        (increment, message) => seen.progress.push([increment, message]),
        () => cancelled,
      );
    },
    pull: async (name, onLine) => {
      seen.pulled.push(name);
      (opts.lines ?? []).forEach((line, i) => {
        if (opts.cancelAfter !== undefined && i >= opts.cancelAfter) cancelled = true;
        if (!cancelled) onLine(line);
      });
      return cancelled ? null : opts.code ?? 0;
    },
    modelsChanged: () => seen.modelsChanged++,
    info: (m) => seen.info.push(m),
    error: (m) => seen.error.push(m),
    offered: () => offered,
    setOffered: async () => {
      offered = true;
    },
  };
  return { d, seen };
}

const progressLines = [
  'wafer pull: https://example/q.gguf -> /c/q.gguf.part',
  'q.gguf  190.0 / 1900.0 MiB   10%  50.0 MiB/s',
  'q.gguf  950.0 / 1900.0 MiB   50%  50.0 MiB/s',
  'q.gguf  1900.0 / 1900.0 MiB  100%  50.0 MiB/s',
  'wafer pull: saved /c/q.gguf (sha256 ok)',
];

describe('suggestedPull', () => {
  it('offers the daemon-named model only while the bundled model serves', () => {
    expect(suggestedPull(bundledStats)).toEqual({ name: 'qwen2.5-coder-1.5b', bytes: 1_900_000_000 });
    expect(suggestedPull({ model: { ...bundledStats.model, source: 'cache' } })).toBeUndefined();
    expect(suggestedPull({ model: { name: 'x', source: 'bundled' } })).toBeUndefined();
    expect(suggestedPull({ model: null })).toBeUndefined();
    expect(suggestedPull(undefined)).toBeUndefined();
  });
});

describe('pullPercent', () => {
  it("reads the percentage of wafer pull's progress lines", () => {
    expect(pullPercent('q.gguf  950.0 / 1900.0 MiB   50%  50.0 MiB/s')).toBe(50);
    expect(pullPercent('q.gguf  1900.0 / 1900.0 MiB  100%  50.0 MiB/s')).toBe(100);
    expect(pullPercent('q.gguf  12.0 MiB  3.0 MiB/s')).toBeUndefined(); // no size known
    expect(pullPercent('wafer pull: saved /c/100%done/q.gguf')).toBeUndefined();
  });
});

describe('offerPull', () => {
  it('offers once; taken, it downloads with progress and tells the daemon', async () => {
    const { d, seen } = deps({ answer: DOWNLOAD, lines: progressLines });
    expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('pulled');
    expect(seen.asked).toHaveLength(1);
    expect(seen.asked[0]).toContain('qwen2.5-coder-1.5b (1.9 GB)');
    expect(seen.actions[0]).toEqual([DOWNLOAD, NOT_NOW]);
    expect(seen.pulled).toEqual(['qwen2.5-coder-1.5b']);
    expect(seen.progress).toEqual([
      [10, '10%'],
      [40, '50%'],
      [50, '100%'],
    ]);
    expect(seen.modelsChanged).toBe(1);
    expect(seen.error).toEqual([]);
    // Never again, whatever the answer was.
    expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('skipped');
    expect(seen.asked).toHaveLength(1);
  });

  it('declined or dismissed: nothing is downloaded, and it is not asked again', async () => {
    for (const answer of [NOT_NOW, undefined]) {
      const { d, seen } = deps({ answer });
      expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('declined');
      expect(seen.pulled).toEqual([]);
      expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('skipped');
    }
  });

  it('a failed download (offline, wrong checksum) says why and leaves the daemon alone', async () => {
    const { d, seen } = deps({
      answer: DOWNLOAD,
      lines: ['wafer pull: https://example/q.gguf -> /c/q.gguf.part', 'wafer pull: checksum mismatch: expected ab12, got cd34'],
      code: 1,
    });
    expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('failed');
    expect(seen.modelsChanged).toBe(0);
    expect(seen.error).toEqual([
      'wafer: could not download qwen2.5-coder-1.5b: checksum mismatch: expected ab12, got cd34. Completions go on with the bundled model.',
    ]);
  });

  it('cancelled from the progress notification: the daemon keeps its model', async () => {
    const { d, seen } = deps({ answer: DOWNLOAD, lines: progressLines, cancelAfter: 2 });
    expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('cancelled');
    expect(seen.progress).toEqual([[10, '10%']]);
    expect(seen.modelsChanged).toBe(0);
    expect(seen.info[0]).toContain('cancelled');
  });
});
