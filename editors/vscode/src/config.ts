// The extension's settings (the `wafer.*` configuration) as one typed object, and what
// they turn into: the daemon's command line, its initializationOptions, and whether a
// language is served. No `vscode` import, so it is unit-tested directly.

export interface WaferSettings {
  path: string;
  args: string[];
  model: string;
  threads: number;
  contextLength: number;
  maxTokens: number;
  debounceMs: number;
  daemonOptions: Record<string, unknown>;
  enable: Record<string, boolean>;
  warm: boolean; // send wafer/warm where the cursor comes to rest (warm.ts)
}

export const DEFAULTS: WaferSettings = {
  path: 'wafer',
  args: [],
  model: '',
  threads: 0,
  contextLength: 4096,
  maxTokens: 64,
  debounceMs: 75,
  daemonOptions: {},
  enable: { '*': true, plaintext: false, markdown: false, scminput: false },
  warm: true,
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
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : (DEFAULTS[k] as number);
  };
  const args = get('args');
  const daemonOptions = get('daemonOptions');
  const enable = get('enable');
  const warm = get('warm');
  return {
    path: str('path') || DEFAULTS.path,
    args: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [],
    model: str('model'),
    threads: int('threads'),
    contextLength: int('contextLength'),
    maxTokens: int('maxTokens'),
    debounceMs: int('debounceMs'),
    daemonOptions: isRecord(daemonOptions) ? daemonOptions : {},
    enable: isRecord(enable) ? booleans(enable) : { ...DEFAULTS.enable },
    warm: typeof warm === 'boolean' ? warm : DEFAULTS.warm,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function booleans(r: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(r)) if (typeof v === 'boolean') out[k] = v;
  return out;
}

// `wafer lsp` plus the user's extra arguments.
export function serverCommand(s: WaferSettings): { command: string; args: string[] } {
  return { command: s.path, args: ['lsp', ...s.args] };
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
