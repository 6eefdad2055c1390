import { describe, expect, it } from 'vitest';
import { DEFAULTS, initializationOptions, languageEnabled, readSettings, serverCommand } from '../src/config';

const from = (o: Record<string, unknown>) => readSettings((k) => o[k]);

describe('readSettings', () => {
  it('uses the defaults for missing values', () => {
    expect(from({})).toEqual(DEFAULTS);
  });
  it('ignores values of the wrong type', () => {
    const s = from({ path: 3, threads: -1, maxTokens: 2.5, args: ['--x', 7], enable: { python: false, go: 'yes' }, daemonOptions: [] });
    expect(s.path).toBe('wafer');
    expect(s.threads).toBe(0);
    expect(s.maxTokens).toBe(64);
    expect(s.args).toEqual(['--x']);
    expect(s.enable).toEqual({ python: false });
    expect(s.daemonOptions).toEqual({});
  });
  it('falls back to "wafer" for an empty path', () => {
    expect(from({ path: '' }).path).toBe('wafer');
  });
});

describe('serverCommand', () => {
  it('runs `wafer lsp` with the extra arguments', () => {
    expect(serverCommand(from({ path: '/opt/wafer', args: ['--threads', '2'] }))).toEqual({
      command: '/opt/wafer',
      args: ['lsp', '--threads', '2'],
    });
  });
});

describe('initializationOptions', () => {
  it('sends the daemon its documented keys', () => {
    const o = initializationOptions(from({ model: '/m.gguf', threads: 4, maxTokens: 32, debounceMs: 10, contextLength: 2048 }));
    expect(o).toEqual({ model: '/m.gguf', threads: 4, maxTokens: 32, debounceMs: 10, contextLength: 2048 });
  });
  it('leaves out an empty model and automatic threads', () => {
    const o = initializationOptions(from({}));
    expect(o).not.toHaveProperty('model');
    expect(o).not.toHaveProperty('threads');
  });
  it('passes daemonOptions through, under the documented keys', () => {
    const o = initializationOptions(from({ daemonOptions: { prefixLines: 50, maxTokens: 1 }, maxTokens: 99 }));
    expect(o['prefixLines']).toBe(50);
    expect(o['maxTokens']).toBe(99);
  });
});

describe('languageEnabled', () => {
  it('uses the language entry, then "*"', () => {
    const enable = { '*': true, markdown: false };
    expect(languageEnabled(enable, 'python')).toBe(true);
    expect(languageEnabled(enable, 'markdown')).toBe(false);
    expect(languageEnabled({ '*': false, rust: true }, 'python')).toBe(false);
    expect(languageEnabled({ '*': false, rust: true }, 'rust')).toBe(true);
    expect(languageEnabled({}, 'python')).toBe(true);
  });
});
