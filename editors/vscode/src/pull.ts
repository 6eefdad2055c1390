// The model on first use: while the daemon serves its small bundled model (`wafer/stats`
// names the catalogue model to get instead, and the draft model the catalogue pairs with
// it), the extension offers once, in a notification with actions (never a modal), to
// download them with `wafer pull`, one after the other; the download shows in VS Code's
// progress notification, can be cancelled, and when it is done the daemon is told
// (`wafer/modelsChanged`) and switches to the model (drafted for by the draft) without a
// restart. A download that fails (offline, a wrong checksum) says why; completion goes on
// with the bundled model, or with the model alone when only its draft failed. No `vscode`
// import: unit-tested with fakes.

export interface PullItem {
  name: string;
  bytes: number; // 0: unknown
}

export interface Suggested extends PullItem {
  // The model that drafts for it (speculative decoding: faster suggestions, the same text).
  draft?: PullItem;
}

function pullItem(v: unknown): PullItem | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { name, bytes } = v as { name?: unknown; bytes?: unknown };
  if (typeof name !== 'string' || name === '') return undefined;
  return { name, bytes: typeof bytes === 'number' && bytes > 0 ? bytes : 0 };
}

// The model to offer, from a `wafer/stats` answer: set only while the bundled model serves.
export function suggestedPull(stats: unknown): Suggested | undefined {
  if (typeof stats !== 'object' || stats === null) return undefined;
  const model = (stats as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null) return undefined;
  const { source, suggested } = model as { source?: unknown; suggested?: unknown };
  if (source !== 'bundled') return undefined;
  const item = pullItem(suggested);
  if (!item) return undefined;
  const draft = pullItem((suggested as { draft?: unknown }).draft);
  return draft ? { ...item, draft } : item;
}

export interface SuggestedDraft extends PullItem {
  for: string; // the catalogue model that serves, which it drafts for
}

// The draft to offer, from a `wafer/stats` answer: set while a catalogue model serves
// without the draft model the catalogue pairs with it (pulled without it).
export function suggestedDraft(stats: unknown): SuggestedDraft | undefined {
  if (typeof stats !== 'object' || stats === null) return undefined;
  const model = (stats as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null) return undefined;
  const raw = (model as { suggested_draft?: unknown }).suggested_draft;
  const item = pullItem(raw);
  const forModel = (raw as { for?: unknown } | undefined)?.for;
  if (!item || typeof forModel !== 'string' || forModel === '') return undefined;
  return { ...item, for: forModel };
}

// The percentage in one of `wafer pull`'s progress lines ("FILE  12.0 / 1100.0 MiB  42%  5.1 MiB/s").
export function pullPercent(line: string): number | undefined {
  const m = /\s(\d{1,3})%\s/.exec(`${line} `);
  if (!m) return undefined;
  const p = Number(m[1]);
  return p <= 100 ? p : undefined;
}

export interface PullDeps {
  // A notification with actions; resolves to the action taken (undefined: dismissed).
  ask(message: string, actions: string[]): Promise<string | undefined>;
  // Runs `task` under a cancellable progress notification.
  withProgress(
    title: string,
    task: (report: (increment: number, message: string) => void, cancelled: () => boolean) => Promise<void>,
  ): Promise<void>;
  // Runs `wafer pull NAME`: each line of its stderr to onLine; the exit code (null: killed).
  pull(name: string, onLine: (line: string) => void, cancelled: () => boolean): Promise<number | null>;
  modelsChanged(): void;
  info(message: string): void;
  error(message: string): void;
  // Whether the offer of a model, or of a draft for the model that serves, was made before
  // (kept across restarts), and remembering that it was.
  offered(what: Offer): boolean;
  setOffered(what: Offer): Promise<void>;
}

export const DOWNLOAD = 'Download';
export const NOT_NOW = 'Not now';

export type Offer = 'model' | 'draft';

export type PullOutcome = 'skipped' | 'declined' | 'pulled' | 'cancelled' | 'failed';

function size(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  return `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

// Makes the offer (once) and, when taken, the download.
export async function offerPull(s: Suggested, deps: PullDeps): Promise<PullOutcome> {
  if (deps.offered('model')) return 'skipped';
  await deps.setOffered('model');
  const sized = (i: PullItem) => `${i.name}${i.bytes > 0 ? ` (${size(i.bytes)})` : ''}`;
  const what = `${sized(s)} for much better suggestions${s.draft ? `, and its draft model ${sized(s.draft)}, which makes them faster` : ''}`;
  const pick = await deps.ask(
    `wafer completes with its small bundled model. Download ${what}? ` +
      `(Later: run "wafer pull ${s.name}${s.draft ? ' --with-draft' : ''}" and reload.)`,
    [DOWNLOAD, NOT_NOW],
  );
  if (pick !== DOWNLOAD) return 'declined';
  return downloadModel(s.name, deps, s.draft ? { bytes: s.bytes, draft: s.draft } : { bytes: s.bytes });
}

// Offers (once) the draft model of the catalogue model that serves, and downloads it when
// taken; the daemon then drafts with it without a restart.
export async function offerDraft(s: SuggestedDraft, deps: PullDeps): Promise<PullOutcome> {
  if (deps.offered('draft')) return 'skipped';
  await deps.setOffered('draft');
  const pick = await deps.ask(
    `wafer: ${s.name}${s.bytes > 0 ? ` (${size(s.bytes)})` : ''} drafts for ${s.for}: the same suggestions, faster. ` +
      `Download it? (Later: run "wafer pull ${s.name}" and reload.)`,
    [DOWNLOAD, NOT_NOW],
  );
  if (pick !== DOWNLOAD) return 'declined';
  return downloadModel(s.name, deps, { bytes: s.bytes, draftFor: s.for });
}

// What downloadModel fetches besides NAME, and what NAME is.
export interface DownloadOptions {
  bytes?: number; // NAME's size (0 or absent: unknown)
  draft?: PullItem; // a draft model to pull after NAME
  draftFor?: string; // NAME is the draft of this model, which serves
}

// `wafer pull NAME`, then `wafer pull DRAFT` when a draft is given, under one progress
// notification (each file's share of it by its size), then the daemon told.
export async function downloadModel(name: string, deps: PullDeps, opts: DownloadOptions = {}): Promise<PullOutcome> {
  const { bytes = 0, draft, draftFor } = opts;
  const items: PullItem[] = [{ name, bytes }, ...(draft ? [draft] : [])];
  // Each file's share of the bar: by size when every size is known, else equal.
  const sizes = items.every((i) => i.bytes > 0) ? items.map((i) => i.bytes) : items.map(() => 1);
  const total = sizes.reduce((a, b) => a + b, 0);
  const codes: (number | null)[] = [];
  let last = '';
  let wasCancelled = false;
  const title = draft ? `wafer: downloading ${name} and its draft model ${draft.name}` : `wafer: downloading ${name}`;
  await deps.withProgress(title, async (report, cancelled) => {
    let shown = 0;
    let before = 0; // the shares of the files done
    const advance = (item: PullItem, overall: number, p: number) => {
      const now = Math.floor(overall);
      if (now > shown) {
        report(now - shown, items.length > 1 ? `${item.name} ${p}%` : `${p}%`);
        shown = now;
      }
    };
    for (const [i, item] of items.entries()) {
      last = '';
      const code = await deps.pull(
        item.name,
        (line) => {
          if (line.trim() !== '') last = line.trim();
          const p = pullPercent(line);
          if (p !== undefined) advance(item, ((before + (sizes[i] * p) / 100) / total) * 100, p);
        },
        cancelled,
      );
      codes.push(code);
      wasCancelled = cancelled();
      if (wasCancelled || code !== 0) return;
      before += sizes[i];
      advance(item, (before / total) * 100, 100); // a file downloaded before shows no progress
    }
  });
  const why = () => last.replace(/^wafer pull:\s*/, '') || `wafer pull exited with ${String(codes[codes.length - 1])}`;
  if (codes[0] !== 0) {
    if (wasCancelled) {
      deps.info(`wafer: the download of ${name} was cancelled; it resumes where it stopped next time`);
      return 'cancelled';
    }
    const goOn = draftFor ? `Completions go on with ${draftFor} alone` : 'Completions go on with the bundled model';
    deps.error(`wafer: could not download ${name}: ${why()}. ${goOn}.`);
    return 'failed';
  }
  deps.modelsChanged();
  if (draftFor) {
    deps.info(`wafer: downloaded ${name}; it drafts for ${draftFor} from now on`);
    return 'pulled';
  }
  if (draft && codes[1] !== 0) {
    // The model is there: it serves alone; the draft can be pulled later.
    if (wasCancelled) {
      deps.info(
        `wafer: downloaded ${name}; completions switch to it now. The download of its draft model ${draft.name} ` +
          `was cancelled; it resumes where it stopped next time`,
      );
      return 'cancelled';
    }
    deps.error(
      `wafer: downloaded ${name}, but could not download its draft model ${draft.name}: ${why()}. ` +
        `Completions switch to ${name} without it.`,
    );
    return 'failed';
  }
  deps.info(`wafer: downloaded ${name}${draft ? ` and its draft model ${draft.name}` : ''}; completions switch to ${draft ? 'them' : 'it'} now`);
  return 'pulled';
}
