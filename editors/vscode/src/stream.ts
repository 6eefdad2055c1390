// Streamed suggestions for VS Code's pull-based inline-completion API. The daemon answers an
// inline-completion request that carries a partialResultToken with `$/progress`
// notifications, each holding the whole suggestion so far, then the final reply.
//
// VS Code asks a provider once per position and keeps that answer; it asks again at the
// same position only when an explicit trigger follows an automatic answer (an explicit
// answer satisfies every later request there, and hiding the suggestion to force a new
// request makes the ghost text blink). So a typing request is answered with the first
// streamed text as soon as it arrives, then one re-trigger (a moment later, once VS Code
// has shown that text: a trigger before would make it drop the answer) makes VS Code ask
// again, and that call is answered when the final reply is in: the ghost text shows early and is
// replaced in place by the whole suggestion, without disappearing in between. An
// explicit request (the trigger key, next/previous) is answered with the final reply. An
// empty final reply leaves the streamed text (the LSP partial-result rule). A request for
// any other document version or position (typing, a cursor move) cancels the stream; a final
// reply marked held back (the daemon's confidence gate) takes the streamed text back. No
// `vscode` import: unit-tested directly.

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

// Why the provider is called: typing (answered with the first text), the user's explicit
// request, or the re-trigger this class asked for (both answered with the final text).
export type Reason = 'automatic' | 'explicit' | 'retrigger';

// What a provider call gets: the value to show, whether it came from a stream already
// under way (not a new request: no new latency), and whether it is final.
export interface Provided<T> {
  value: T | undefined;
  fromStream: boolean;
  final: boolean;
}

// Whether a value holds at least one suggestion (an array of items or a list with items).
export function hasItems(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value && typeof value === 'object' && Array.isArray((value as { items?: unknown }).items))
    return (value as { items: unknown[] }).items.length > 0;
  return false;
}

// Whether a final reply says the daemon's confidence gate held the suggestion back: the text
// that streamed before is taken back (an empty reply alone leaves it standing).
export function heldBack(value: unknown): boolean {
  const wafer = value && typeof value === 'object' ? (value as { wafer?: { outcome?: unknown } }).wafer : undefined;
  return !!wafer && typeof wafer === 'object' && wafer.outcome === 'held_back';
}

function sameKey(a: StreamKey, b: StreamKey): boolean {
  return a.uri === b.uri && a.version === b.version && a.line === b.line && a.character === b.character;
}

export interface StreamOptions {
  showMs?: number; // wait between answering with the first text and the re-trigger (60)
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

class Stream<T> {
  timer: unknown; // the re-trigger due after the first text
  latest: T | undefined; // the longest text so far (a partial value or the final reply)
  done = false;
  cancelled = false;
  shownPartial = false; // a partial text was given to VS Code
  firstWaiters: Array<() => void> = [];
  finalWaiters: Array<() => void> = [];
  constructor(
    readonly key: StreamKey,
    public cancel: () => void,
  ) {}
  static wake(list: Array<() => void>): void {
    for (const f of list.splice(0)) f();
  }
}

export class Streamer<T> {
  private current: Stream<T> | undefined;
  private retriggerDue = false; // a re-trigger went out and its provider call has not come
  readonly counts = { requests: 0, partials: 0, retriggers: 0, servedFromStream: 0, cancelled: 0 };

  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;

  constructor(
    // Asks VS Code to call the provider again for `key` (the caller checks that the cursor
    // is still there).
    private readonly retrigger: (key: StreamKey) => void,
    private readonly opts: StreamOptions = {},
  ) {
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  }

  // True once for the provider call a re-trigger of this class caused: tells it from an
  // explicit one (the user's trigger or next/previous, which want a fresh request).
  takeRetrigger(): boolean {
    const due = this.retriggerDue;
    this.retriggerDue = false;
    return due;
  }

  // The provider's answer for `key`: from the stream for that position when there is one,
  // else from a new request made with `start` (which cancels the previous stream). An
  // explicit request at a position whose stream has finished starts anew.
  async provide(key: StreamKey, start: StartRequest<T>, reason: Reason = 'automatic'): Promise<Provided<T>> {
    let s = this.current;
    const reuse = s && !s.cancelled && sameKey(s.key, key) && !(reason === 'explicit' && s.done);
    let fromStream = true;
    if (!reuse) {
      this.cancel();
      fromStream = false;
      this.counts.requests++;
      s = new Stream<T>(key, () => {});
      this.current = s;
      const stream = s;
      const started = start(key, (value) => this.onPartial(stream, value));
      stream.cancel = started.cancel;
      started.final.then(
        (value) => this.onFinal(stream, value ?? undefined),
        () => this.onFinal(stream, undefined),
      );
    } else {
      this.counts.servedFromStream++;
    }
    const stream = s!;
    if (reason === 'automatic') {
      if (stream.latest === undefined && !stream.done && !stream.cancelled)
        await new Promise<void>((resolve) => stream.firstWaiters.push(resolve));
      if (!stream.done && !stream.cancelled && stream.latest !== undefined && !stream.shownPartial) {
        stream.shownPartial = true;
        // VS Code asks again; that call gets the final text.
        stream.timer = this.setTimer(() => {
          stream.timer = undefined;
          if (!stream.cancelled && !stream.done) this.fire(stream);
        }, this.opts.showMs ?? 60);
      }
    } else if (!stream.done && !stream.cancelled) {
      await new Promise<void>((resolve) => stream.finalWaiters.push(resolve));
    }
    return { value: stream.latest, fromStream, final: stream.done };
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
    Stream.wake(s.firstWaiters);
    Stream.wake(s.finalWaiters);
  }

  // The document `uri` is now at `version`: a stream for an older version of it ends.
  documentChanged(uri: string, version: number): void {
    const s = this.current;
    if (s && s.key.uri === uri && s.key.version !== version) this.cancel();
  }

  // Whether a request (for `key`, when given) is streaming now.
  streaming(key?: StreamKey): boolean {
    const s = this.current;
    return !!s && !s.cancelled && !s.done && (!key || sameKey(s.key, key));
  }

  private onPartial(s: Stream<T>, value: T): void {
    if (s.cancelled || s.done || !hasItems(value)) return;
    this.counts.partials++;
    s.latest = value;
    Stream.wake(s.firstWaiters);
  }

  private onFinal(s: Stream<T>, value: T | undefined): void {
    if (s.cancelled || s.done) return;
    s.done = true;
    if (s.timer !== undefined) this.clearTimer(s.timer);
    s.timer = undefined;
    if (value !== undefined && (hasItems(value) || heldBack(value))) s.latest = value;
    const held = s.finalWaiters.length > 0;
    Stream.wake(s.firstWaiters);
    Stream.wake(s.finalWaiters);
    // A partial text is showing and VS Code has not asked again (the re-trigger was not
    // due yet, or VS Code dropped it): ask now, so the final text replaces it.
    if (s.shownPartial && !held && this.current === s) this.fire(s);
  }

  private fire(s: Stream<T>): void {
    this.retriggerDue = true;
    this.counts.retriggers++;
    this.retrigger(s.key);
  }
}
