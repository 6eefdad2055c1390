// The extension's settings (the `wafer.*` configuration) as one typed object, and what
// they turn into: the daemon's command line, its initializationOptions, and whether a
// language is served. No `vscode` import, so it is unit-tested directly.

export interface WaferSettings {
  path: string; // the wafer.path setting; '' = search for the binary (binary.ts)
  args: string[];
  model: string;
  threads: number;
  contextLength: number;
  maxTokens: number;
  debounceMs: number;
  daemonOptions: Record<string, unknown>;
  enable: Record<string, boolean>;
  warm: boolean; // send wafer/warm where the cursor comes to rest (warm.ts)
  stream: boolean; // ask for streamed partial results; the ghost text grows as it decodes (stream.ts)
}

export const DEFAULTS: WaferSettings = {
  path: '',
  args: [],
  model: '',
  threads: 0,
  contextLength: 4096,
  maxTokens: 64,
  debounceMs: 75,
  daemonOptions: {},
  enable: { '*': true, plaintext: false, markdown: false, scminput: false },
  warm: true,
  stream: true,
};

// Lower bounds of the numeric settings (as in package.json's schema).
const MINIMUM: Partial<Record<keyof WaferSettings, number>> = {
  threads: 0,
  contextLength: 16,
  maxTokens: 1,
  debounceMs: 0,
};

// Reads every setting through `get` (vscode's WorkspaceConfiguration.get in the
// extension), falling back to the defaults when a value is missing or of the wrong type.
export function readSettings(get: (key: string) => unknown): WaferSettings {
  const str = (k: keyof WaferSettings): string => {
    const v = get(k);
    return typeof v === 'string' ? v : (DEFAULTS[k] as string);
  };
  const int = (k: keyof WaferSettings): number => {
    const v = get(k);
    return typeof v === 'number' && Number.isInteger(v) && v >= (MINIMUM[k] ?? 0) ? v : (DEFAULTS[k] as number);
  };
  const args = get('args');
  const daemonOptions = get('daemonOptions');
  const enable = get('enable');
  const warm = get('warm');
  const stream = get('stream');
  return {
    path: str('path'),
    args: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [],
    model: str('model'),
    threads: int('threads'),
    contextLength: int('contextLength'),
    maxTokens: int('maxTokens'),
    debounceMs: int('debounceMs'),
    daemonOptions: isRecord(daemonOptions) ? daemonOptions : {},
    enable: isRecord(enable) ? booleans(enable) : { ...DEFAULTS.enable },
    warm: typeof warm === 'boolean' ? warm : DEFAULTS.warm,
    stream: typeof stream === 'boolean' ? stream : DEFAULTS.stream,
  };
}

// What is wrong with the user's settings, one message per setting, each naming the setting,
// what it must be, what it is, and the value used instead. Empty when all is well.
export function settingProblems(get: (key: string) => unknown): string[] {
  const out: string[] = [];
  const shown = (v: unknown): string => JSON.stringify(v) ?? String(v);
  const bad = (k: keyof WaferSettings, want: string, v: unknown): void => {
    out.push(`wafer.${k} must be ${want}, not ${shown(v)}; using ${shown(DEFAULTS[k])}`);
  };
  for (const k of ['path', 'model'] as const) {
    const v = get(k);
    if (v !== undefined && typeof v !== 'string') bad(k, 'a string', v);
  }
  for (const k of ['threads', 'contextLength', 'maxTokens', 'debounceMs'] as const) {
    const v = get(k);
    const min = MINIMUM[k] ?? 0;
    if (v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v >= min)) bad(k, `a whole number of at least ${min}`, v);
  }
  for (const k of ['warm', 'stream'] as const) {
    const v = get(k);
    if (v !== undefined && typeof v !== 'boolean') bad(k, 'true or false', v);
  }
  const args = get('args');
  if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string')))
    out.push(`wafer.args must be a list of strings, not ${shown(args)}; ${Array.isArray(args) ? 'ignoring the entries that are not strings' : 'using []'}`);
  const daemonOptions = get('daemonOptions');
  if (daemonOptions !== undefined && !isRecord(daemonOptions)) bad('daemonOptions', 'an object', daemonOptions);
  const enable = get('enable');
  if (enable !== undefined) {
    if (!isRecord(enable)) bad('enable', 'an object of languageId: true/false', enable);
    else
      for (const [lang, v] of Object.entries(enable))
        if (typeof v !== 'boolean') out.push(`wafer.enable["${lang}"] must be true or false, not ${shown(v)}; ignoring it`);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function booleans(r: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(r)) if (typeof v === 'boolean') out[k] = v;
  return out;
}

// The daemon's arguments: `lsp` plus the user's extra arguments (the binary is binary.ts's).
export function serverArgs(s: WaferSettings): string[] {
  return ['lsp', ...s.args];
}

// The daemon's initializationOptions (also sent as the `wafer` section of
// workspace/didChangeConfiguration): its documented keys, over any extra daemonOptions.
export function initializationOptions(s: WaferSettings): Record<string, unknown> {
  const o: Record<string, unknown> = { ...s.daemonOptions };
  if (s.model) o['model'] = s.model;
  if (s.threads > 0) o['threads'] = s.threads;
  o['contextLength'] = s.contextLength;
  o['maxTokens'] = s.maxTokens;
  o['debounceMs'] = s.debounceMs;
  return o;
}

// Whether suggestions are wanted for `languageId`: its own entry, else "*".
export function languageEnabled(enable: Record<string, boolean>, languageId: string): boolean {
  const own = enable[languageId];
  if (own !== undefined) return own;
  return enable['*'] !== false;
}
