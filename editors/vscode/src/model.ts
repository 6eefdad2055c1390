// Which model serves, from the daemon's `wafer/stats` answer (its `model` field: name,
// file, and why that file: the setting, the download cache or the bundled model; and the
// model that drafts for it, if any), for the log and the status-bar tooltip. No `vscode`
// import.

const SOURCE: Record<string, string> = {
  setting: 'the wafer.model setting',
  cache: 'the most capable model in the download cache',
  bundled: 'the bundled model',
};

// "NAME (PATH, how it was chosen)[, drafted by DRAFT]"; undefined while no model is loaded (or the answer has
// no model, as with the scripted test engine's file-less model).
export function describeModel(stats: unknown): string | undefined {
  if (typeof stats !== 'object' || stats === null) return undefined;
  const m = (stats as { model?: unknown }).model;
  if (typeof m !== 'object' || m === null) return undefined;
  const { name, path, source, draft } = m as { name?: unknown; path?: unknown; source?: unknown; draft?: unknown };
  if (typeof name !== 'string') return undefined;
  // The model that drafts for it: its name, the first part of "NAME, N parameters, ...".
  const drafted = typeof draft === 'string' && draft !== '' ? `, drafted by ${draft.split(',')[0]}` : '';
  if (typeof path !== 'string') return name + drafted;
  const how = typeof source === 'string' ? SOURCE[source] ?? source : undefined;
  return `${name} (${path}${how ? `, ${how}` : ''})${drafted}`;
}
