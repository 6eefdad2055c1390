// Bookkeeping for inline suggestions, kept free of the `vscode` module so it is
// unit-tested directly: which suggestion is showing (for accept reports), keystroke to
// suggestion latency, the counters behind the status bar, and how many UTF-16 units of a
// suggestion a partial accept took (the `acceptedLength` the daemon is told, as in
// Copilot's language server).

export interface Pos {
  line: number;
  character: number;
}

// A suggestion as the daemon sent it, reduced to what accept reports need.
export interface Shown {
  uri: string;
  insertText: string;
  start: Pos; // where insertText begins in the document (the item's range start)
  item: { insertText: string; range?: { start: Pos; end: Pos } };
}

export type ModelState = 'starting' | 'ready' | 'error' | 'stopped';

// UTF-16 units of `insertText` that the document now holds from the suggestion's start:
// the common prefix of the suggestion and the text from its start to the cursor.
export function acceptedLength(insertText: string, typed: string): number {
  const n = Math.min(insertText.length, typed.length);
  let i = 0;
  while (i < n && insertText.charCodeAt(i) === typed.charCodeAt(i)) i++;
  return i;
}

export class SuggestionLog {
  lastLatencyMs: number | undefined;
  state: ModelState = 'starting';
  binary: string | undefined; // the binary in use and how it was found (binary.ts's describe)
  problem: string | undefined; // why the daemon could not start (no binary found)
  model: string | undefined; // the model that serves (model.ts's describeModel)
  counts = { requests: 0, shown: 0, accepted: 0, partial: 0 };
  current: Shown | undefined;
  private lastEdit = new Map<string, number>();

  constructor(readonly now: () => number = () => performance.now()) {}

  // A document changed (a keystroke): the start of the latency a suggestion answers.
  edited(uri: string): void {
    this.lastEdit.set(uri, this.now());
  }

  // A request starts; returns its start time for `provided`.
  begin(): number {
    this.counts.requests++;
    return this.now();
  }

  // A request returned `items` (first one shown). The latency counts from the last edit
  // of the document when it came shortly before the request (typing), else from the
  // request itself (an explicit trigger, a cursor move).
  provided(uri: string, t0: number, items: Shown[]): void {
    if (items.length === 0) return;
    const end = this.now();
    const edit = this.lastEdit.get(uri);
    const from = edit !== undefined && edit <= t0 && t0 - edit < 2000 ? edit : t0;
    this.lastLatencyMs = end - from;
    this.counts.shown++;
    this.current = items[0];
    if (this.state !== 'error') this.state = 'ready';
  }

  // After a partial accept: the report for the daemon, or undefined when nothing of the
  // current suggestion was taken (or all of it: that is a full accept).
  partialAccept(uri: string, typed: string): { item: Shown['item']; acceptedLength: number } | undefined {
    const s = this.current;
    if (!s || s.uri !== uri) return undefined;
    const n = acceptedLength(s.insertText, typed);
    if (n === 0 || n >= s.insertText.length) return undefined;
    this.counts.partial++;
    return { item: s.item, acceptedLength: n };
  }

  fullAccept(): void {
    this.counts.accepted++;
    this.current = undefined;
  }
}

// The status bar text and tooltip for a state; `enabled` false: suggestions turned off.
export function statusText(log: SuggestionLog, enabled = true): { text: string; tooltip: string } {
  const s = stateText(log, enabled);
  let tooltip = s.tooltip;
  if (log.binary) tooltip += `\nbinary: ${log.binary}`;
  if (log.model) tooltip += `\nmodel: ${log.model}`;
  return { text: s.text, tooltip };
}

function stateText(log: SuggestionLog, enabled: boolean): { text: string; tooltip: string } {
  const c = log.counts;
  const stats = `${c.requests} requests, ${c.shown} shown, ${c.accepted} accepted, ${c.partial} partially accepted`;
  const ms = log.lastLatencyMs;
  const last = ms === undefined ? 'n/a' : ms.toFixed(1) + ' ms';
  if (!enabled)
    return {
      text: ms === undefined ? '$(circle-outline) wafer off' : `$(circle-outline) wafer off · ${Math.round(ms)} ms`,
      tooltip: `wafer: suggestions off (click to turn them on); last suggestion ${last} after the keystroke\n${stats}`,
    };
  switch (log.state) {
    case 'starting':
      return { text: '$(loading~spin) wafer: starting', tooltip: 'wafer: starting the daemon / loading the model' };
    case 'error':
      return { text: '$(error) wafer', tooltip: `wafer: ${log.problem ?? 'the daemon reported an error'} (see the wafer output)` };
    case 'stopped':
      return { text: '$(circle-slash) wafer', tooltip: 'wafer: daemon not running' };
    case 'ready':
      return {
        text: ms === undefined ? '$(sparkle) wafer' : `$(sparkle) wafer ${Math.round(ms)} ms`,
        tooltip: `wafer: suggestions on (click to turn them off); model ready; last suggestion ${last} after the keystroke\n${stats}`,
      };
  }
}
