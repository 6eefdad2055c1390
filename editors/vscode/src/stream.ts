// Streamed suggestions for VS Code's pull-based inline-completion API. The daemon answers an
// inline-completion request that carries a partialResultToken with `$/progress`
// notifications, each holding the whole suggestion so far, then the final reply. VS Code
// asks a provider once per position, so the stream is kept here, keyed by document
// version and position: the first call returns as soon as the first text streams in; each
// later piece of text re-triggers the inline suggest (throttled), and that call is answered
// at once from the stream with the longer text, so the ghost text grows in place without
// disappearing in between. The final reply replaces the streamed text (an empty final reply
// leaves it: the LSP partial-result rule). A request for any other document version or
// position (typing, a cursor move) cancels the stream. No `vscode` import: unit-tested
// directly.

export interface StreamKey {
  uri: string;
  version: number;
  line: number;
  character: number;
}

// One request to the daemon: `onPartial` gets each streamed value; the promise is the final
// reply; `cancel` sends $/cancelRequest.
export interface Started<T> {
  final: Promise<T | null | undefined>;
  cancel: () => void;
}
export type StartRequest<T> = (key: StreamKey, onPartial: (value: T) => void) => Started<T>;

export interface StreamOptions {
  throttleMs: number; // at most one re-trigger per this many ms while text streams in
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

// Whether a value holds at least one suggestion (an array of items or a list with items).
export function hasItems(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value && typeof value === 'object' && Array.isArray((value as { items?: unknown }).items))
    return (value as { items: unknown[] }).items.length > 0;
  return false;
}

function sameKey(a: StreamKey, b: StreamKey): boolean {
  return a.uri === b.uri && a.version === b.version && a.line === b.line && a.character === b.character;
}

class Stream<T> {
  latest: T | undefined; // the longest text so far (a partial value or the final reply)
  done = false;
  cancelled = false;
  waiters: Array<(v: T | undefined) => void> = [];
  timer: unknown;
  pendingRetrigger = false;
  lastRetrigger = -Infinity;
  constructor(
    readonly key: StreamKey,
    public cancel: () => void,
  ) {}
  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f(this.latest);
  }
}

// What a provider call gets: the value to show, whether it came from a stream already
// under way (a re-trigger: not a new request, no new latency), and whether it is final.
export interface Provided<T> {
  value: T | undefined;
  fromStream: boolean;
  final: boolean;
}

export class Streamer<T> {
  private current: Stream<T> | undefined;
  private retriggersDue = 0;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;
  // Counters for tests and statistics.
  readonly counts = { requests: 0, partials: 0, retriggers: 0, servedFromStream: 0, cancelled: 0 };

  constructor(
    // Asks VS Code to call the provider again for `key` (the caller checks that the cursor
    // is still there).
    private readonly retrigger: (key: StreamKey) => void,
    private readonly opts: StreamOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  }

  // True once per re-trigger this class asked for: tells the provider call it causes from
  // an explicit one (the user's trigger or next/previous, which want a fresh request).
  takeRetrigger(): boolean {
    if (this.retriggersDue === 0) return false;
    this.retriggersDue--;
    return true;
  }

  // The provider's answer for `key`: from the stream for that position when there is one
  // (a re-trigger, or VS Code asking again), else from a new request made with `start`
  // (which cancels the previous stream). `fresh`: an explicit request, which starts anew
  // once the stream at this position has finished. Resolves with the first text, or
  // undefined when there is none.
  async provide(key: StreamKey, start: StartRequest<T>, fresh = false): Promise<Provided<T>> {
    const s = this.current;
    if (s && !s.cancelled && sameKey(s.key, key) && !(fresh && s.done)) {
      if (s.latest !== undefined || s.done) {
        this.counts.servedFromStream++;
        return { value: s.latest, fromStream: true, final: s.done };
      }
      const value = await new Promise<T | undefined>((resolve) => s.waiters.push(resolve));
      return { value, fromStream: true, final: s.done };
    }
    this.cancel();
    this.counts.requests++;
    const stream = new Stream<T>(key, () => {});
    this.current = stream;
    const first = new Promise<T | undefined>((resolve) => stream.waiters.push(resolve));
    const started = start(key, (value) => this.onPartial(stream, value));
    stream.cancel = started.cancel;
    started.final.then(
      (value) => this.onFinal(stream, value ?? undefined),
      () => this.onFinal(stream, undefined),
    );
    const value = await first;
    return { value, fromStream: false, final: stream.done };
  }

  // Ends the stream in flight (typing elsewhere, a cursor move, the extension turned off).
  cancel(): void {
    const s = this.current;
    this.current = undefined;
    if (!s || s.cancelled) return;
    s.cancelled = true;
    if (s.timer !== undefined) this.clearTimer(s.timer);
    if (!s.done) {
      this.counts.cancelled++;
      s.cancel();
    }
    s.wake();
  }

  // The document `uri` is now at `version`: a stream for an older version of it ends.
  documentChanged(uri: string, version: number): void {
    const s = this.current;
    if (s && s.key.uri === uri && s.key.version !== version) this.cancel();
  }

  // Whether a request for `key` is streaming now.
  streaming(key?: StreamKey): boolean {
    const s = this.current;
    return !!s && !s.cancelled && !s.done && (!key || sameKey(s.key, key));
  }

  private onPartial(s: Stream<T>, value: T): void {
    if (s.cancelled || s.done || !hasItems(value)) return;
    this.counts.partials++;
    const first = s.latest === undefined;
    s.latest = value;
    if (first) s.wake();
    else this.scheduleRetrigger(s);
  }

  private onFinal(s: Stream<T>, value: T | undefined): void {
    if (s.cancelled || s.done) return;
    s.done = true;
    if (s.timer !== undefined) this.clearTimer(s.timer);
    s.timer = undefined;
    const shown = s.latest !== undefined;
    if (value !== undefined && hasItems(value)) s.latest = value;
    if (s.waiters.length > 0) {
      s.wake(); // nothing streamed before the final reply: it is the first answer
      return;
    }
    if (shown) this.fire(s); // replace the streamed text with the final one
  }

  private scheduleRetrigger(s: Stream<T>): void {
    if (s.timer !== undefined) return; // one is due; it will show the latest text
    const wait = Math.max(0, s.lastRetrigger + this.opts.throttleMs - this.now());
    s.timer = this.setTimer(() => {
      s.timer = undefined;
      if (!s.cancelled) this.fire(s);
    }, wait);
  }

  private fire(s: Stream<T>): void {
    s.lastRetrigger = this.now();
    this.counts.retriggers++;
    this.retriggersDue = 1; // at most one provider call is answered as a re-trigger
    this.retrigger(s.key);
  }
}
