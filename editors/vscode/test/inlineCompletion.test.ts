import { describe, expect, it } from 'vitest';
import { acceptedLength, SuggestionLog, statusText, type Shown } from '../src/inlineCompletion';

const shown = (insertText: string, uri = 'file:///a.py'): Shown => ({
  uri,
  insertText,
  start: { line: 2, character: 8 },
  item: { insertText, range: { start: { line: 2, character: 8 }, end: { line: 2, character: 8 } } },
});

function clock(times: number[]): () => number {
  let i = 0;
  return () => times[Math.min(i++, times.length - 1)]!;
}

describe('acceptedLength', () => {
  it('is the common prefix in UTF-16 units', () => {
    expect(acceptedLength('a, b):\n    return a + b', 'a, ')).toBe(3);
    expect(acceptedLength('a, b)', 'a, b)')).toBe(5);
    expect(acceptedLength('abc', 'xbc')).toBe(0);
    expect(acceptedLength('😀x', '😀')).toBe(2);
    expect(acceptedLength('ab', 'abc')).toBe(2);
  });
});

describe('SuggestionLog', () => {
  it('measures latency from the keystroke that preceded the request', () => {
    const log = new SuggestionLog(clock([100, 130, 180]));
    log.edited('file:///a.py'); // 100
    const t0 = log.begin(); // 130
    log.provided('file:///a.py', t0, [shown('x')]); // 180
    expect(log.lastLatencyMs).toBe(80);
    expect(log.state).toBe('ready');
    expect(log.counts).toMatchObject({ requests: 1, shown: 1 });
  });
  it('measures from the request when there was no recent edit', () => {
    const log = new SuggestionLog(clock([0, 5000, 5040]));
    log.edited('file:///a.py');
    const t0 = log.begin();
    log.provided('file:///a.py', t0, [shown('x')]);
    expect(log.lastLatencyMs).toBe(40);
  });
  it('ignores empty results', () => {
    const log = new SuggestionLog(clock([0, 1]));
    log.provided('file:///a.py', log.begin(), []);
    expect(log.lastLatencyMs).toBeUndefined();
    expect(log.current).toBeUndefined();
  });
  it('reports a partial accept once something, but not all, was taken', () => {
    const log = new SuggestionLog(clock([0, 1, 2]));
    log.provided('file:///a.py', log.begin(), [shown('a, b):')]);
    expect(log.partialAccept('file:///a.py', '')).toBeUndefined();
    expect(log.partialAccept('file:///b.py', 'a')).toBeUndefined();
    const r = log.partialAccept('file:///a.py', 'a, ');
    expect(r).toEqual({ item: shown('a, b):').item, acceptedLength: 3 });
    expect(log.partialAccept('file:///a.py', 'a, b):')).toBeUndefined();
    expect(log.counts.partial).toBe(1);
  });
  it('keeps the error state when later results arrive', () => {
    const log = new SuggestionLog(clock([0, 1, 2]));
    log.state = 'error';
    log.provided('file:///a.py', log.begin(), [shown('x')]);
    expect(log.state).toBe('error');
  });
});

describe('statusText', () => {
  it('shows the last latency when ready', () => {
    const log = new SuggestionLog(clock([0, 10, 52.4]));
    log.edited('u');
    log.provided('u', log.begin(), [shown('x', 'u')]);
    expect(statusText(log).text).toBe('$(sparkle) wafer 52 ms');
    expect(statusText(log).tooltip).toContain('52.4 ms');
  });
  it('shows starting, error and stopped states', () => {
    const log = new SuggestionLog();
    expect(statusText(log).text).toContain('starting');
    log.state = 'error';
    expect(statusText(log).text).toContain('error');
    log.state = 'stopped';
    expect(statusText(log).text).toContain('circle-slash');
  });
  it('names the binary in the tooltip, or why there is none', () => {
    const log = new SuggestionLog();
    log.state = 'ready';
    log.binary = '/usr/bin/wafer (found on PATH)';
    expect(statusText(log).tooltip).toContain('\nbinary: /usr/bin/wafer (found on PATH)');
    expect(statusText(log).tooltip).not.toContain('model:');
    log.model = 'wafer-tiny-code (/x/m.gguf, the bundled model)';
    expect(statusText(log).tooltip).toContain('\nbinary: /usr/bin/wafer (found on PATH)\nmodel: wafer-tiny-code (/x/m.gguf, the bundled model)');
    log.state = 'error';
    log.binary = undefined;
    log.problem = 'no wafer binary found: looked for ...';
    expect(statusText(log).tooltip).toContain('no wafer binary found');
  });
});
