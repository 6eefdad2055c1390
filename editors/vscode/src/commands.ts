// The extension's commands as plain functions over a small set of dependencies, so that the
// unit tests run them against fakes: accept word/line (VS Code's partial accept, then the
// accept report to the daemon), next/previous, trigger, toggle, show log, statistics and
// restart. extension.ts registers each under its `wafer.*` id. No `vscode` import.
import type { SuggestionLog } from './inlineCompletion';

// VS Code's own inline-suggestion commands that wafer's commands drive.
export const BUILTIN = {
  acceptWord: 'editor.action.inlineSuggest.acceptNextWord',
  acceptLine: 'editor.action.inlineSuggest.acceptNextLine',
  next: 'editor.action.inlineSuggest.showNext',
  previous: 'editor.action.inlineSuggest.showPrevious',
  trigger: 'editor.action.inlineSuggest.trigger',
  hide: 'editor.action.inlineSuggest.hide',
} as const;

export interface CommandDeps {
  execute: (command: string, ...args: unknown[]) => Thenable<unknown>;
  // The active editor's document and the text from `start` to the cursor (undefined when
  // there is no editor or the cursor is before `start`).
  textToCursor: (start: { line: number; character: number }) => { uri: string; text: string } | undefined;
  client: {
    notify: (method: string, params: object) => void;
    request: <T>(method: string, params: object) => Promise<T | undefined>;
    start: () => Promise<void>;
    stop: () => Promise<void>;
    cancelStream: () => void;
  };
  log: SuggestionLog;
  output: { show: () => void; appendLine: (line: string) => void };
  refresh: () => void; // redraw the status bar
  enabled: { get: () => boolean; set: (on: boolean) => void | Thenable<void> };
}

export function commands(d: CommandDeps): {
  acceptWord: () => Promise<void>;
  acceptLine: () => Promise<void>;
  next: () => Promise<void>;
  previous: () => Promise<void>;
  trigger: () => Promise<void>;
  toggle: (on?: boolean) => Promise<void>;
  showOutput: () => Promise<void>;
  showStats: () => Promise<void>;
  restart: () => Promise<void>;
} {
  // After VS Code's own partial accept: tell the daemon how much of the suggestion the
  // document now holds.
  const partial = async (builtin: string): Promise<void> => {
    await d.execute(builtin);
    const shown = d.log.current;
    if (!shown) return;
    const at = d.textToCursor(shown.start);
    if (!at) return;
    const report = d.log.partialAccept(at.uri, at.text);
    if (report) d.client.notify('textDocument/didPartiallyAcceptCompletion', report);
    d.refresh();
  };
  return {
    acceptWord: () => partial(BUILTIN.acceptWord),
    acceptLine: () => partial(BUILTIN.acceptLine),
    next: async () => {
      await d.execute(BUILTIN.next);
    },
    previous: async () => {
      await d.execute(BUILTIN.previous);
    },
    trigger: async () => {
      if (d.enabled.get()) await d.execute(BUILTIN.trigger);
    },
    // Turns suggestions on or off (no argument: flips). Off hides the ghost text and ends
    // the request in flight; no request is made until it is on again.
    toggle: async (on?: boolean) => {
      const next = typeof on === 'boolean' ? on : !d.enabled.get();
      await d.enabled.set(next);
      if (!next) {
        d.client.cancelStream();
        await d.execute(BUILTIN.hide);
      }
      d.output.appendLine(`wafer: suggestions ${next ? 'on' : 'off'}`);
      d.refresh();
    },
    showOutput: async () => d.output.show(),
    showStats: async () => {
      const stats = await d.client.request<unknown>('wafer/stats', {}).catch((e: unknown) => String(e));
      d.output.appendLine(
        `[stats] client: ${JSON.stringify(d.log.counts)}, last latency ${d.log.lastLatencyMs?.toFixed(1) ?? 'n/a'} ms, suggestions ${d.enabled.get() ? 'on' : 'off'}`,
      );
      d.output.appendLine(`[stats] daemon: ${JSON.stringify(stats)}`);
      d.output.show();
    },
    restart: async () => {
      d.output.appendLine('wafer: restarting the daemon');
      await d.client.stop();
      await d.client.start();
    },
  };
}
