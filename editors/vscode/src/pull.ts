// The model on first use: while the daemon serves its small bundled model (`wafer/stats`
// names the catalogue model to get instead), the extension offers once, in a notification
// with actions (never a modal), to download that model with `wafer pull`; the download
// shows in VS Code's progress notification, can be cancelled, and when it is done the
// daemon is told (`wafer/modelsChanged`) and switches to it without a restart. A download
// that fails (offline, a wrong checksum) says why; completion goes on with the bundled
// model. No `vscode` import: unit-tested with fakes.

export interface Suggested {
  name: string;
  bytes: number;
}

// The model to offer, from a `wafer/stats` answer: set only while the bundled model serves.
export function suggestedPull(stats: unknown): Suggested | undefined {
  if (typeof stats !== 'object' || stats === null) return undefined;
  const model = (stats as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null) return undefined;
  const { source, suggested } = model as { source?: unknown; suggested?: unknown };
  if (source !== 'bundled' || typeof suggested !== 'object' || suggested === null) return undefined;
  const { name, bytes } = suggested as { name?: unknown; bytes?: unknown };
  if (typeof name !== 'string' || name === '') return undefined;
  return { name, bytes: typeof bytes === 'number' ? bytes : 0 };
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
  // Whether the offer was made before (kept across restarts), and remembering that it was.
  offered(): boolean;
  setOffered(): Promise<void>;
}

export const DOWNLOAD = 'Download';
export const NOT_NOW = 'Not now';

export type PullOutcome = 'skipped' | 'declined' | 'pulled' | 'cancelled' | 'failed';

function size(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  return `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

// Makes the offer (once) and, when taken, the download.
export async function offerPull(s: Suggested, deps: PullDeps): Promise<PullOutcome> {
  if (deps.offered()) return 'skipped';
  await deps.setOffered();
  const what = `${s.name}${s.bytes > 0 ? ` (${size(s.bytes)})` : ''}`;
  const pick = await deps.ask(
    `wafer completes with its small bundled model. Download ${what} for much better suggestions? ` +
      `(Later: run "wafer pull ${s.name}" and reload.)`,
    [DOWNLOAD, NOT_NOW],
  );
  if (pick !== DOWNLOAD) return 'declined';
  return downloadModel(s.name, deps);
}

// `wafer pull NAME` under a progress notification, then the daemon told.
export async function downloadModel(name: string, deps: PullDeps): Promise<PullOutcome> {
  let code: number | null = null;
  let last = '';
  let wasCancelled = false;
  await deps.withProgress(`wafer: downloading ${name}`, async (report, cancelled) => {
    let shown = 0;
    code = await deps.pull(
      name,
      (line) => {
        if (line.trim() !== '') last = line.trim();
        const p = pullPercent(line);
        if (p !== undefined && p > shown) {
          report(p - shown, `${p}%`);
          shown = p;
        }
      },
      cancelled,
    );
    wasCancelled = cancelled();
  });
  if (wasCancelled) {
    deps.info(`wafer: the download of ${name} was cancelled; it resumes where it stopped next time`);
    return 'cancelled';
  }
  if (code !== 0) {
    const why = last.replace(/^wafer pull:\s*/, '') || `wafer pull exited with ${String(code)}`;
    deps.error(`wafer: could not download ${name}: ${why}. Completions go on with the bundled model.`);
    return 'failed';
  }
  deps.modelsChanged();
  deps.info(`wafer: downloaded ${name}; completions switch to it now`);
  return 'pulled';
}
