import { describe, expect, it } from 'vitest';
import { hasItems, heldBack, Streamer, type StreamKey, type Started } from '../src/stream';

type V = { items: { insertText: string }[]; wafer?: { outcome: string } };
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

const tick = () => new Promise((r) => setTimeout(r, 0));

// Manual timers.
function timers() {
  let now = 0;
  const due: { at: number; fn: () => void }[] = [];
  return {
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

describe('hasItems', () => {
  it('accepts lists and arrays with items', () => {
    expect(hasItems(v('x'))).toBe(true);
    expect(hasItems([{ insertText: 'x' }])).toBe(true);
    expect(hasItems(v())).toBe(false);
    expect(hasItems(null)).toBe(false);
  });
});

describe('Streamer', () => {
  it('answers typing with the first streamed text, re-triggers once, and answers that with the final text', async () => {
    const fired: StreamKey[] = [];
    const t = timers();
    const s = new Streamer<V>((k) => fired.push(k), { showMs: 60, setTimer: t.setTimer, clearTimer: t.clearTimer });
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.partial(v('a,'));
    expect(await first).toEqual({ value: v('a,'), fromStream: false, final: false });
    t.advance(59);
    expect(fired).toHaveLength(0); // VS Code shows the first text first...
    t.advance(1);
    expect(fired).toEqual([key()]); // ...then is asked to call again
    expect(s.streaming(key())).toBe(true);

    // VS Code's call for the re-trigger waits for the final reply...
    expect(s.takeRetrigger()).toBe(true);
    expect(s.takeRetrigger()).toBe(false);
    let answered = false;
    const second = s.provide(key(), r.start, 'retrigger').then((x) => ((answered = true), x));
    r.partial(v('a, b'));
    r.partial(v('a, b):'));
    await tick();
    expect(answered).toBe(false); // the first text stays shown meanwhile
    r.final(v('a, b):\n    return a + b'));
    // ...which replaces the streamed text.
    expect(await second).toEqual({ value: v('a, b):\n    return a + b'), fromStream: true, final: true });
    expect(fired).toHaveLength(1);
    expect(r.state.started).toBe(1);
    expect(r.state.cancelled).toBe(0);
    expect(s.streaming()).toBe(false);
    expect(s.counts).toMatchObject({ requests: 1, partials: 3, retriggers: 1, servedFromStream: 1 });
  });

  it('re-triggers at the end when the text finished before the re-trigger was due', async () => {
    const fired: StreamKey[] = [];
    const t = timers();
    const s = new Streamer<V>((k) => fired.push(k), { showMs: 60, setTimer: t.setTimer, clearTimer: t.clearTimer });
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.partial(v('a,'));
    await first;
    t.advance(10);
    r.final(v('a, b):'));
    await tick();
    expect(fired).toHaveLength(1);
    t.advance(100);
    expect(fired).toHaveLength(1);
    expect(s.takeRetrigger()).toBe(true);
    expect((await s.provide(key(), r.start, 'retrigger')).value).toEqual(v('a, b):'));
  });

  it('keeps the streamed text when the final reply is empty', async () => {
    const s = new Streamer<V>(() => {});
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.partial(v('x = 1'));
    await first;
    const second = s.provide(key(), r.start, 'retrigger');
    r.final(v());
    expect((await second).value).toEqual(v('x = 1'));
  });

  it('takes the streamed text back when the final reply says the gate held it back', async () => {
    const fired: StreamKey[] = [];
    const t = timers();
    const s = new Streamer<V>((k) => fired.push(k), { showMs: 60, setTimer: t.setTimer, clearTimer: t.clearTimer });
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.partial(v('x = 1'));
    expect((await first).value).toEqual(v('x = 1'));
    const held = { items: [], wafer: { outcome: 'held_back' } };
    expect(heldBack(held)).toBe(true);
    expect(heldBack(v())).toBe(false);
    r.final(held);
    await tick();
    expect(fired).toHaveLength(1); // VS Code is asked again at once...
    expect(s.takeRetrigger()).toBe(true);
    const again = await s.provide(key(), r.start, 'retrigger');
    expect(again).toEqual({ value: held, fromStream: true, final: true }); // ...and shows nothing
    expect(r.state.started).toBe(1);
  });

  it('answers with the final reply when nothing streamed, without a re-trigger', async () => {
    const fired: StreamKey[] = [];
    const s = new Streamer<V>((k) => fired.push(k));
    const r = fakeRequest();
    const first = s.provide(key(), r.start);
    r.final(v('whole'));
    expect(await first).toEqual({ value: v('whole'), fromStream: false, final: true });
    await tick();
    expect(fired).toHaveLength(0);
  });

  it('answers an explicit request with the final text', async () => {
    const fired: StreamKey[] = [];
    const s = new Streamer<V>((k) => fired.push(k));
    const r = fakeRequest();
    const p = s.provide(key(), r.start, 'explicit');
    r.partial(v('a,'));
    r.final(v('a, b):'));
    expect(await p).toEqual({ value: v('a, b):'), fromStream: false, final: true });
    await tick();
    expect(fired).toHaveLength(0);
  });

  it('cancels the stream when the document or the position changes (typing)', async () => {
    const fired: StreamKey[] = [];
    const t = timers();
    const s = new Streamer<V>((k) => fired.push(k), { setTimer: t.setTimer, clearTimer: t.clearTimer });
    const r1 = fakeRequest();
    const p1 = s.provide(key(8, 1), r1.start);
    r1.partial(v('a,'));
    await p1;
    const held = s.provide(key(8, 1), r1.start, 'retrigger');
    const r2 = fakeRequest();
    const p2 = s.provide(key(9, 2), r2.start); // the user typed
    expect(r1.state.cancelled).toBe(1);
    expect((await held).value).toEqual(v('a,')); // the held call returns (VS Code drops it)
    r1.partial(v('a, b)')); // late pieces of the cancelled stream are ignored
    r1.final(v('a, b):'));
    r2.partial(v(' b'));
    expect((await p2).value).toEqual(v(' b'));
    t.advance(100);
    expect(fired).toEqual([key(9, 2)]); // for the new stream; none for the cancelled one
    expect(s.counts.cancelled).toBe(1);
  });

  it('a change of the document ends a stream for its older version only', async () => {
    const s = new Streamer<V>(() => {});
    const r = fakeRequest();
    const p = s.provide(key(8, 3), r.start);
    s.documentChanged('file:///b.py', 7);
    s.documentChanged('file:///a.py', 3);
    expect(r.state.cancelled).toBe(0);
    s.documentChanged('file:///a.py', 4);
    expect(r.state.cancelled).toBe(1);
    expect((await p).value).toBeUndefined();
  });

  it('an explicit request after the stream finished asks again (next/previous, trigger)', async () => {
    const s = new Streamer<V>(() => {});
    const r1 = fakeRequest();
    const p1 = s.provide(key(), r1.start);
    r1.final(v('one'));
    await p1;
    expect(s.takeRetrigger()).toBe(false);
    const r2 = fakeRequest();
    const p2 = s.provide(key(), r2.start, 'explicit');
    r2.final(v('one', 'two'));
    expect((await p2).value).toEqual(v('one', 'two'));
    expect(r2.state.started).toBe(1);
  });
});
