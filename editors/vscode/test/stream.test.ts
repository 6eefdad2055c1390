import { describe, expect, it } from 'vitest';
import { hasItems, Streamer, type StreamKey, type Started } from '../src/stream';

type V = { items: { insertText: string }[] };
const v = (...texts: string[]): V => ({ items: texts.map((insertText) => ({ insertText })) });
const key = (character = 8, version = 1): StreamKey => ({ uri: 'file:///a.py', version, line: 2, character });

// A request whose partial results and final reply the test sends by hand.
function fakeRequest() {
  let partial: (value: V) => void = () => {};
  let resolve: (value: V | null) => void = () => {};
  const state = { cancelled: 0, started: 0 };
  const start = (_key: StreamKey, onPartial: (value: V) => void): Started<V> => {
    state.started++;
    partial = onPartial;
    return {
      final: new Promise<V | null>((r) => (resolve = r)),
      cancel: () => state.cancelled++,
    };
  };
  return { start, state, partial: (x: V) => partial(x), final: (x: V | null) => resolve(x) };
}

// Manual timers and clock.
function timers() {
  let now = 0;
  const due: { at: number; fn: () => void }[] = [];
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn };
      due.push(t);
      return t;
    },
    clearTimer: (t: unknown) => {
      const i = due.indexOf(t as (typeof due)[number]);
      if (i >= 0) due.splice(i, 1);
    },
    advance(ms: number) {
      now += ms;
      for (const t of [...due].sort((a, b) => a.at - b.at)) {
        if (t.at <= now) {
          due.splice(due.indexOf(t), 1);
          t.fn();
        }
      }
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('hasItems', () => {
  it('accepts lists and arrays with items', () => {
    expect(hasItems(v('x'))).toBe(true);
    expect(hasItems([{ insertText: 'x' }])).toBe(true);
    expect(hasItems(v())).toBe(false);
    expect(hasItems(null)).toBe(false);
  });
});

describe('Streamer', () => {
  it('answers with the first streamed text, re-triggers as more arrives, then with the final text', async () => {
    const t = timers();
    const fired: StreamKey[] = [];
    const s = new Streamer<V>((k) => fired.push(k), { throttleMs: 30, setTimer: t.setTimer, clearTimer: t.clearTimer }, t.now);
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.partial(v('a,'));
    expect(await first).toEqual({ value: v('a,'), fromStream: false, final: false });
    expect(s.streaming(key())).toBe(true);

    r.partial(v('a, b'));
    t.advance(0);
    expect(fired).toHaveLength(1); // first re-trigger goes out at once
    expect(s.takeRetrigger()).toBe(true);
    expect(await s.provide(key(), r.start)).toEqual({ value: v('a, b'), fromStream: true, final: false });

    r.partial(v('a, b)'));
    r.partial(v('a, b):'));
    t.advance(10);
    expect(fired).toHaveLength(1); // throttled
    t.advance(30);
    expect(fired).toHaveLength(2); // one re-trigger for both pieces, with the latest text
    expect((await s.provide(key(), r.start)).value).toEqual(v('a, b):'));

    r.final(v('a, b):\n    return a + b'));
    await tick();
    expect(fired).toHaveLength(3); // the final text replaces the streamed one
    expect(await s.provide(key(), r.start)).toEqual({ value: v('a, b):\n    return a + b'), fromStream: true, final: true });
    expect(r.state.started).toBe(1);
    expect(r.state.cancelled).toBe(0);
    expect(s.streaming()).toBe(false);
  });

  it('keeps the streamed text when the final reply is empty', async () => {
    const fired: StreamKey[] = [];
    const s = new Streamer<V>((k) => fired.push(k), { throttleMs: 0 });
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.partial(v('x = 1'));
    await first;
    r.final(v());
    await tick();
    expect((await s.provide(key(), r.start)).value).toEqual(v('x = 1'));
  });

  it('answers with the final reply when nothing streamed', async () => {
    const fired: StreamKey[] = [];
    const s = new Streamer<V>((k) => fired.push(k), { throttleMs: 0 });
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.final(v('whole'));
    expect(await first).toEqual({ value: v('whole'), fromStream: false, final: true });
    expect(fired).toHaveLength(0);
  });

  it('cancels the stream when the document or the position changes (typing)', async () => {
    const t = timers();
    const fired: StreamKey[] = [];
    const s = new Streamer<V>((k) => fired.push(k), { throttleMs: 30, setTimer: t.setTimer, clearTimer: t.clearTimer }, t.now);
    const r1 = fakeRequest();
    const p1 = s.provide(key(8, 1), r1.start);
    r1.partial(v('a,'));
    await p1;
    r1.partial(v('a, b')); // a re-trigger is due...
    const r2 = fakeRequest();
    const p2 = s.provide(key(9, 2), r2.start); // ...but the user typed
    expect(r1.state.cancelled).toBe(1);
    t.advance(100);
    expect(fired).toHaveLength(0); // the re-trigger that was due is dropped
    r1.partial(v('a, b)')); // late pieces of the cancelled stream are ignored
    r2.partial(v(' b'));
    expect((await p2).value).toEqual(v(' b'));
    expect(s.counts.cancelled).toBe(1);
  });

  it('a change of the document ends a stream for its older version only', async () => {
    const s = new Streamer<V>(() => {}, { throttleMs: 0 });
    const r = fakeRequest();
    const p = s.provide(key(8, 3), r.start);
    s.documentChanged('file:///b.py', 7);
    s.documentChanged('file:///a.py', 3);
    expect(r.state.cancelled).toBe(0);
    s.documentChanged('file:///a.py', 4);
    expect(r.state.cancelled).toBe(1);
    expect((await p).value).toBeUndefined();
  });

  it('a request still waiting for its first text resolves empty when cancelled', async () => {
    const s = new Streamer<V>(() => {}, { throttleMs: 0 });
    const r = fakeRequest();
    const p = s.provide(key(), r.start);
    s.cancel();
    expect((await p).value).toBeUndefined();
    expect(r.state.cancelled).toBe(1);
  });

  it('an explicit request after the stream finished asks again (next/previous, trigger)', async () => {
    const s = new Streamer<V>(() => {}, { throttleMs: 0 });
    const r1 = fakeRequest();
    const p1 = s.provide(key(), r1.start);
    r1.final(v('one'));
    await p1;
    expect(s.takeRetrigger()).toBe(false);
    const r2 = fakeRequest();
    const p2 = s.provide(key(), r2.start, true);
    r2.final(v('one', 'two'));
    expect((await p2).value).toEqual(v('one', 'two'));
    expect(r2.state.started).toBe(1);
  });
});
