import { describe, expect, it } from 'vitest';
import { DEFAULTS, initializationOptions, languageEnabled, readSettings, serverArgs, settingProblems } from '../src/config';

const from = (o: Record<string, unknown>) => readSettings((k) => o[k]);

describe('readSettings', () => {
  it('uses the defaults for missing values', () => {
    expect(from({})).toEqual(DEFAULTS);
  });
  it('ignores values of the wrong type', () => {
    const s = from({ path: 3, threads: -1, maxTokens: 2.5, args: ['--x', 7], enable: { python: false, go: 'yes' }, daemonOptions: [] });
    expect(s.path).toBe('');
    expect(s.threads).toBe(0);
    expect(s.maxTokens).toBe(64);
    expect(s.args).toEqual(['--x']);
    expect(s.enable).toEqual({ python: false });
    expect(s.daemonOptions).toEqual({});
  });
  it('keeps an empty path (search for the binary)', () => {
    expect(from({ path: '' }).path).toBe('');
  });
});

describe('serverArgs', () => {
  it('runs `wafer lsp` with the extra arguments', () => {
    expect(serverArgs(from({ path: '/opt/wafer', args: ['--threads', '2'] }))).toEqual(['lsp', '--threads', '2']);
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

describe('settingProblems', () => {
  const problems = (o: Record<string, unknown>) => settingProblems((k) => o[k]);
  it('is empty for the defaults and for valid values', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ ...DEFAULTS })).toEqual([]);
    expect(problems({ threads: 4, maxTokens: 1, contextLength: 16, stream: false, enable: { go: false } })).toEqual([]);
  });
  it('names the setting, what it must be, the value and what is used instead', () => {
    expect(problems({ threads: -1 })).toEqual(['wafer.threads must be a whole number of at least 0, not -1; using 0']);
    expect(problems({ maxTokens: 0 })).toEqual(['wafer.maxTokens must be a whole number of at least 1, not 0; using 64']);
    expect(problems({ contextLength: 8 })).toEqual(['wafer.contextLength must be a whole number of at least 16, not 8; using 4096']);
    expect(problems({ debounceMs: 2.5 })).toEqual(['wafer.debounceMs must be a whole number of at least 0, not 2.5; using 75']);
    expect(problems({ path: 3 })).toEqual(['wafer.path must be a string, not 3; using ""']);
    expect(problems({ stream: 'yes' })).toEqual(['wafer.stream must be true or false, not "yes"; using true']);
    expect(problems({ args: ['--x', 7] })).toEqual(['wafer.args must be a list of strings, not ["--x",7]; ignoring the entries that are not strings']);
    expect(problems({ enable: { go: 'no' } })).toEqual(['wafer.enable["go"] must be true or false, not "no"; ignoring it']);
    expect(problems({ daemonOptions: [] })).toEqual(['wafer.daemonOptions must be an object, not []; using {}']);
  });
  it('agrees with readSettings on the value used', () => {
    expect(readSettings((k) => ({ maxTokens: 0, contextLength: 8 })[k as 'maxTokens']).maxTokens).toBe(64);
    expect(readSettings((k) => ({ contextLength: 8 })[k as 'contextLength']).contextLength).toBe(4096);
  });
});
