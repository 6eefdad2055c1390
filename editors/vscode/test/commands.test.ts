import { describe, expect, it } from 'vitest';
import { BUILTIN, commands, type CommandDeps } from '../src/commands';
import { SuggestionLog, statusText, type Shown } from '../src/inlineCompletion';

const URI = 'file:///a.py';
const SUGGESTION = 'a, b):\n    return a + b';
const shown = (insertText: string): Shown => ({
  uri: URI,
  insertText,
  start: { line: 2, character: 8 },
  item: { insertText, range: { start: { line: 2, character: 8 }, end: { line: 2, character: 8 } } },
});

// A fake editor holding one line after the suggestion's start, and VS Code's partial-accept
// commands acting on it the way VS Code does (next word / next line of the ghost text).
function setup() {
  const log = new SuggestionLog();
  log.provided(URI, log.begin(), [shown(SUGGESTION)]);
  const calls: string[] = [];
  const notified: { method: string; params: any }[] = [];
  const lines: string[] = [];
  let typed = ''; // what the document holds from the suggestion's start to the cursor
  let on = true;
  let running = true;
  let cancelled = 0;
  let shownGhost = true;
  const d: CommandDeps = {
    execute: async (command: string) => {
      calls.push(command);
      const rest = SUGGESTION.slice(typed.length);
      if (command === BUILTIN.acceptWord) typed += rest.match(/^\s*[\w]+|^\s*[^\w\s]+|^\s+/)![0];
      if (command === BUILTIN.acceptLine) typed += rest.includes('\n') ? rest.slice(0, rest.indexOf('\n') + 1) : rest;
      if (command === BUILTIN.hide) shownGhost = false;
      return undefined;
    },
    textToCursor: () => ({ uri: URI, text: typed }),
    client: {
      notify: (method, params) => notified.push({ method, params }),
      request: async <T,>(method: string) => ({ method }) as T,
      start: async () => {
        calls.push('start');
        running = true;
      },
      stop: async () => {
        calls.push('stop');
        running = false;
      },
      cancelStream: () => cancelled++,
    },
    log,
    output: { show: () => calls.push('output.show'), appendLine: (l) => lines.push(l) },
    refresh: () => {},
    enabled: { get: () => on, set: (v) => void (on = v) },
  };
  return {
    c: commands(d),
    log,
    calls,
    notified,
    lines,
    typed: () => typed,
    on: () => on,
    running: () => running,
    cancelled: () => cancelled,
    ghost: () => shownGhost,
  };
}

describe('commands', () => {
  it('accept word runs VS Code\'s accept-next-word and reports how much was taken', async () => {
    const t = setup();
    await t.c.acceptWord();
    expect(t.calls).toEqual([BUILTIN.acceptWord]);
    expect(t.typed()).toBe('a');
    expect(t.notified).toEqual([
      { method: 'textDocument/didPartiallyAcceptCompletion', params: { item: shown(SUGGESTION).item, acceptedLength: 1 } },
    ]);
    await t.c.acceptWord();
    expect(t.typed()).toBe('a,');
    expect(t.notified[1]!.params.acceptedLength).toBe(2);
    expect(t.log.counts.partial).toBe(2);
  });

  it('accept line takes the next line, and the last accept is not a partial one', async () => {
    const t = setup();
    await t.c.acceptLine();
    expect(t.calls).toEqual([BUILTIN.acceptLine]);
    expect(t.typed()).toBe('a, b):\n');
    expect(t.notified[0]!.params.acceptedLength).toBe('a, b):\n'.length);
    await t.c.acceptLine();
    expect(t.typed()).toBe(SUGGESTION);
    expect(t.notified).toHaveLength(1); // all of it: VS Code's accept command reports that
  });

  it('next and previous run VS Code\'s show-next/previous', async () => {
    const t = setup();
    await t.c.next();
    await t.c.previous();
    expect(t.calls).toEqual([BUILTIN.next, BUILTIN.previous]);
  });

  it('toggle turns suggestions off (hiding the ghost text, ending the stream) and on again', async () => {
    const t = setup();
    await t.c.toggle();
    expect(t.on()).toBe(false);
    expect(t.cancelled()).toBe(1);
    expect(t.ghost()).toBe(false);
    expect(statusText(t.log, t.on()).text).toMatch(/^\$\(circle-outline\) wafer off · \d+ ms$/);
    await t.c.trigger();
    expect(t.calls).not.toContain(BUILTIN.trigger); // no request while off
    await t.c.toggle();
    expect(t.on()).toBe(true);
    expect(statusText(t.log, t.on()).text).toMatch(/^\$\(sparkle\) wafer \d+ ms$/);
    await t.c.trigger();
    expect(t.calls).toContain(BUILTIN.trigger);
    await t.c.toggle(true);
    expect(t.on()).toBe(true);
    await t.c.toggle(false);
    expect(t.on()).toBe(false);
    expect(t.lines).toEqual(['wafer: suggestions off', 'wafer: suggestions on', 'wafer: suggestions on', 'wafer: suggestions off']);
  });

  it('show log shows the output channel; statistics are written there', async () => {
    const t = setup();
    await t.c.showOutput();
    expect(t.calls).toEqual(['output.show']);
    await t.c.showStats();
    expect(t.lines.join('\n')).toContain('[stats] client: {"requests":1,"shown":1');
    expect(t.lines.join('\n')).toContain('[stats] daemon: {"method":"wafer/stats"}');
  });

  it('restart stops and starts the daemon', async () => {
    const t = setup();
    await t.c.restart();
    expect(t.calls).toEqual(['stop', 'start']);
    expect(t.running()).toBe(true);
  });
});
