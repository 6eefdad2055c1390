import { describe, expect, it } from 'vitest';
import { DOWNLOAD, NOT_NOW, offerDraft, offerPull, pullPercent, suggestedDraft, suggestedPull, type PullDeps } from '../src/pull';

const bundledStats = {
  model: { name: 'wafer-tiny', path: '/x/models/wafer-tiny-code-q8_0.gguf', source: 'bundled', suggested: { name: 'qwen2.5-coder-1.5b', bytes: 1_900_000_000 } },
};

// Fakes of VS Code and of the `wafer pull` process: what they were asked, and scripted answers.
// `lines`, `code` and `cancelAfter` apply to every pull, or per name when given as a map.
type PerName<T> = T | Record<string, T>;
function perName<T>(v: PerName<T> | undefined, name: string, isMap: (v: PerName<T>) => boolean): T | undefined {
  return v !== undefined && isMap(v) ? (v as Record<string, T>)[name] : (v as T | undefined);
}

function deps(
  opts: { answer?: string | undefined; lines?: PerName<string[]>; code?: PerName<number | null>; cancelAfter?: PerName<number> } = {},
) {
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
  const offered = new Set<string>();
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
      const lines = perName(opts.lines, name, (v) => !Array.isArray(v)) ?? [];
      const cancelAfter = perName(opts.cancelAfter, name, (v) => typeof v === 'object');
      lines.forEach((line, i) => {
        if (cancelAfter !== undefined && i >= cancelAfter) cancelled = true;
        if (!cancelled) onLine(line);
      });
      const code = perName(opts.code, name, (v) => typeof v === 'object' && v !== null);
      return cancelled ? null : code ?? 0;
    },
    modelsChanged: () => seen.modelsChanged++,
    info: (m) => seen.info.push(m),
    error: (m) => seen.error.push(m),
    offered: (what) => offered.has(what),
    setOffered: async (what) => {
      offered.add(what);
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

const draftStats = {
  model: { ...bundledStats.model, suggested: { ...bundledStats.model.suggested, draft: { name: 'qwen2.5-coder-0.5b', bytes: 500_000_000 } } },
};

// Each file's progress lines as `wafer pull` prints them.
function linesOf(file: string, mib: number): string[] {
  return [
    `wafer pull: https://example/${file} -> /c/${file}.part`,
    `${file}  ${(mib / 10).toFixed(1)} / ${mib.toFixed(1)} MiB   10%  50.0 MiB/s`,
    `${file}  ${(mib / 2).toFixed(1)} / ${mib.toFixed(1)} MiB   50%  50.0 MiB/s`,
    `${file}  ${mib.toFixed(1)} / ${mib.toFixed(1)} MiB  100%  50.0 MiB/s`,
    `wafer pull: saved /c/${file} (sha256 ok)`,
  ];
}
const bothLines = { 'qwen2.5-coder-1.5b': linesOf('q.gguf', 1900), 'qwen2.5-coder-0.5b': linesOf('d.gguf', 500) };

describe('suggestedPull', () => {
  it('offers the daemon-named model only while the bundled model serves', () => {
    expect(suggestedPull(bundledStats)).toEqual({ name: 'qwen2.5-coder-1.5b', bytes: 1_900_000_000 });
    expect(suggestedPull(draftStats)).toEqual({
      name: 'qwen2.5-coder-1.5b',
      bytes: 1_900_000_000,
      draft: { name: 'qwen2.5-coder-0.5b', bytes: 500_000_000 },
    });
    // A draft without a name is no draft.
    expect(suggestedPull({ model: { ...bundledStats.model, suggested: { ...bundledStats.model.suggested, draft: { bytes: 5 } } } })).toEqual(
      suggestedPull(bundledStats),
    );
    expect(suggestedPull({ model: { ...draftStats.model, source: 'cache' } })).toBeUndefined();
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

  it('with a draft model: both named in the offer, pulled one after the other under one bar, then the daemon told', async () => {
    const { d, seen } = deps({ answer: DOWNLOAD, lines: bothLines });
    expect(await offerPull(suggestedPull(draftStats)!, d)).toBe('pulled');
    expect(seen.asked[0]).toContain(
      'Download qwen2.5-coder-1.5b (1.9 GB) for much better suggestions, and its draft model qwen2.5-coder-0.5b (500 MB), which makes them faster?',
    );
    expect(seen.asked[0]).toContain('wafer pull qwen2.5-coder-1.5b --with-draft');
    expect(seen.titles).toEqual(['wafer: downloading qwen2.5-coder-1.5b and its draft model qwen2.5-coder-0.5b']);
    expect(seen.pulled).toEqual(['qwen2.5-coder-1.5b', 'qwen2.5-coder-0.5b']);
    // The model is 1.9 of the 2.4 GB: 79 % of the bar; the draft the rest.
    expect(seen.progress).toEqual([
      [7, 'qwen2.5-coder-1.5b 10%'],
      [32, 'qwen2.5-coder-1.5b 50%'],
      [40, 'qwen2.5-coder-1.5b 100%'],
      [2, 'qwen2.5-coder-0.5b 10%'],
      [8, 'qwen2.5-coder-0.5b 50%'],
      [11, 'qwen2.5-coder-0.5b 100%'],
    ]);
    expect(seen.progress.reduce((a, [n]) => a + n, 0)).toBe(100);
    expect(seen.modelsChanged).toBe(1);
    expect(seen.error).toEqual([]);
    expect(seen.info).toEqual(['wafer: downloaded qwen2.5-coder-1.5b and its draft model qwen2.5-coder-0.5b; completions switch to them now']);
  });

  it('a file downloaded before shows no progress: the bar still ends full', async () => {
    const { d, seen } = deps({
      answer: DOWNLOAD,
      lines: { 'qwen2.5-coder-1.5b': ['wafer pull: q.gguf is already downloaded'], 'qwen2.5-coder-0.5b': linesOf('d.gguf', 500) },
    });
    expect(await offerPull(suggestedPull(draftStats)!, d)).toBe('pulled');
    expect(seen.progress[0]).toEqual([79, 'qwen2.5-coder-1.5b 100%']);
    expect(seen.progress.reduce((a, [n]) => a + n, 0)).toBe(100);
  });

  it('the model fails: the draft is not pulled and the daemon keeps the bundled model', async () => {
    const { d, seen } = deps({
      answer: DOWNLOAD,
      lines: { 'qwen2.5-coder-1.5b': ['wafer pull: connection refused'] },
      code: { 'qwen2.5-coder-1.5b': 1 },
    });
    expect(await offerPull(suggestedPull(draftStats)!, d)).toBe('failed');
    expect(seen.pulled).toEqual(['qwen2.5-coder-1.5b']);
    expect(seen.modelsChanged).toBe(0);
    expect(seen.error).toEqual(['wafer: could not download qwen2.5-coder-1.5b: connection refused. Completions go on with the bundled model.']);
  });

  it('only the draft fails: the daemon switches to the model, which serves without it', async () => {
    const { d, seen } = deps({
      answer: DOWNLOAD,
      lines: { 'qwen2.5-coder-1.5b': linesOf('q.gguf', 1900), 'qwen2.5-coder-0.5b': ['wafer pull: d.gguf: sha256 mismatch'] },
      code: { 'qwen2.5-coder-1.5b': 0, 'qwen2.5-coder-0.5b': 1 },
    });
    expect(await offerPull(suggestedPull(draftStats)!, d)).toBe('failed');
    expect(seen.modelsChanged).toBe(1);
    expect(seen.error).toEqual([
      'wafer: downloaded qwen2.5-coder-1.5b, but could not download its draft model qwen2.5-coder-0.5b: d.gguf: sha256 mismatch. ' +
        'Completions switch to qwen2.5-coder-1.5b without it.',
    ]);
  });

  it('cancelled during the draft: the model serves, the draft resumes next time', async () => {
    const { d, seen } = deps({ answer: DOWNLOAD, lines: bothLines, cancelAfter: { 'qwen2.5-coder-0.5b': 2 } });
    expect(await offerPull(suggestedPull(draftStats)!, d)).toBe('cancelled');
    expect(seen.pulled).toEqual(['qwen2.5-coder-1.5b', 'qwen2.5-coder-0.5b']);
    expect(seen.modelsChanged).toBe(1);
    expect(seen.info[0]).toContain('downloaded qwen2.5-coder-1.5b; completions switch to it now');
    expect(seen.info[0]).toContain('its draft model qwen2.5-coder-0.5b was cancelled');
  });
});

const cacheStats = {
  model: {
    name: 'qwen2.5-coder-1.5b',
    path: '/c/qwen2.5-coder-1.5b-q8_0.gguf',
    source: 'cache',
    suggested_draft: { name: 'qwen2.5-coder-0.5b', bytes: 500_000_000, for: 'qwen2.5-coder-1.5b' },
  },
};

describe('offerDraft', () => {
  it('reads the draft the daemon names for the catalogue model that serves', () => {
    expect(suggestedDraft(cacheStats)).toEqual({ name: 'qwen2.5-coder-0.5b', bytes: 500_000_000, for: 'qwen2.5-coder-1.5b' });
    expect(suggestedDraft(bundledStats)).toBeUndefined();
    expect(suggestedDraft({ model: { ...cacheStats.model, suggested_draft: { name: 'x' } } })).toBeUndefined(); // for whom?
    expect(suggestedDraft(undefined)).toBeUndefined();
  });

  it('offers once, apart from the model offer; taken, it pulls the draft alone and tells the daemon', async () => {
    const { d, seen } = deps({ answer: DOWNLOAD, lines: linesOf('d.gguf', 500) });
    expect(await offerPull(suggestedPull(bundledStats)!, d)).toBe('pulled'); // the model offer, made before
    expect(await offerDraft(suggestedDraft(cacheStats)!, d)).toBe('pulled');
    expect(seen.asked[1]).toContain('qwen2.5-coder-0.5b (500 MB) drafts for qwen2.5-coder-1.5b: the same suggestions, faster.');
    expect(seen.asked[1]).toContain('wafer pull qwen2.5-coder-0.5b');
    expect(seen.pulled).toEqual(['qwen2.5-coder-1.5b', 'qwen2.5-coder-0.5b']);
    expect(seen.modelsChanged).toBe(2);
    expect(seen.info[1]).toBe('wafer: downloaded qwen2.5-coder-0.5b; it drafts for qwen2.5-coder-1.5b from now on');
    expect(await offerDraft(suggestedDraft(cacheStats)!, d)).toBe('skipped');
    expect(seen.asked).toHaveLength(2);
  });

  it('a failed download of the draft leaves the model serving alone', async () => {
    const { d, seen } = deps({ answer: DOWNLOAD, lines: ['wafer pull: connection refused'], code: 1 });
    expect(await offerDraft(suggestedDraft(cacheStats)!, d)).toBe('failed');
    expect(seen.modelsChanged).toBe(0);
    expect(seen.error).toEqual(['wafer: could not download qwen2.5-coder-0.5b: connection refused. Completions go on with qwen2.5-coder-1.5b alone.']);
  });
});
