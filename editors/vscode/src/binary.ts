// Which `wafer` binary the extension runs, and how it was found, on Linux, macOS and
// Windows. The order:
//   1. the `wafer.path` setting when it is set (`~`, `${env:VAR}` and, on Windows, `%VAR%`
//      expanded; a bare name is looked up on PATH);
//   2. the extension's own `bin/<platform>-<arch>/wafer` (`wafer.exe` on Windows), which a
//      per-platform .vsix carries;
//   3. PATH, searched here (not by the shell): split by the platform's delimiter, and on
//      Windows each name tried with the PATHEXT extensions (`wafer.exe` among them);
//   4. the default install folder: `~/.local/bin/wafer`, on Windows
//      `%LOCALAPPDATA%\Programs\wafer\bin\wafer.exe`.
// A `wafer.path` that leads nowhere is reported as such rather than silently replaced by
// another binary. All OS access goes through `Host` (host.ts); no `vscode` import.
import * as nodePath from 'node:path';
import type { Host } from './host';

export type How = 'setting' | 'extension' | 'PATH' | 'install';

export interface Found {
  found: true;
  path: string;
  how: How;
}

export interface NotFound {
  found: false;
  setting: string; // the expanded wafer.path, '' when it is not set
  searched: string[]; // what was looked at, in order, for the user
}

export type Located = Found | NotFound;

const paths = (host: Host): typeof nodePath.posix => (host.platform === 'win32' ? nodePath.win32 : nodePath.posix);

// An environment variable; Windows' names are case-insensitive (`Path`, `PATH`).
export function getEnv(host: Host, name: string): string | undefined {
  if (host.platform !== 'win32') return host.env[name];
  const want = name.toUpperCase();
  for (const [k, v] of Object.entries(host.env)) if (k.toUpperCase() === want && v !== undefined) return v;
  return undefined;
}

// The `wafer.path` setting as a path: surrounding quotes dropped (a path pasted from a
// Windows shell), `${env:VAR}` (VS Code's syntax; unset: empty), `${userHome}`, `%VAR%` on
// Windows (unset: kept) and a leading `~` expanded; on Windows `/` becomes `\`.
export function expandPath(value: string, host: Host): string {
  let s = value.trim();
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) s = s.slice(1, -1).trim();
  s = s.replace(/\$\{env:([^}]+)\}/g, (_m, name: string) => getEnv(host, name) ?? '').replace(/\$\{userHome\}/g, () => host.homedir);
  if (host.platform === 'win32') s = s.replace(/%([^%\\/:]+)%/g, (m, name: string) => getEnv(host, name) ?? m);
  if (s === '~' || /^~[\\/]/.test(s)) s = host.homedir + s.slice(1);
  if (host.platform === 'win32' && s !== '') s = nodePath.win32.normalize(s);
  return s;
}

// A program name to look up on PATH rather than a path: no folder in it.
function isName(s: string, host: Host): boolean {
  return host.platform === 'win32' ? !/[\\/:]/.test(s) : !s.includes('/');
}

// Windows' program extensions, in PATHEXT's order (`.exe` always among them).
function programExtensions(host: Host): string[] {
  const list = (getEnv(host, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.startsWith('.'));
  if (!list.includes('.exe')) list.unshift('.exe');
  return list;
}

// The files that stand for `file`: itself, or on Windows with each program extension
// when it has none of them.
function programFiles(file: string, host: Host): string[] {
  if (host.platform !== 'win32') return [file];
  const exts = programExtensions(host);
  const ext = nodePath.win32.extname(file).toLowerCase();
  return exts.includes(ext) ? [file] : exts.map((e) => file + e);
}

// The folders of PATH, in order (empty entries and, on Windows, quotes dropped).
export function pathFolders(host: Host): string[] {
  const p = paths(host);
  return (getEnv(host, 'PATH') ?? '')
    .split(p.delimiter)
    .map((d) => (host.platform === 'win32' ? d.replace(/"/g, '').trim() : d))
    .filter((d) => d !== '');
}

// `name` looked up in the folders of PATH, as the shell would.
export function searchPath(name: string, host: Host): string | undefined {
  const p = paths(host);
  for (const dir of pathFolders(host))
    for (const file of programFiles(p.join(dir, name), host)) if (host.isExecutable(file)) return file;
  return undefined;
}

export function bundledPath(extensionDir: string, host: Host): string {
  const p = paths(host);
  return p.join(extensionDir, 'bin', `${host.platform}-${host.arch}`, host.platform === 'win32' ? 'wafer.exe' : 'wafer');
}

export function installPath(host: Host): string {
  if (host.platform === 'win32') {
    const local = getEnv(host, 'LOCALAPPDATA') || nodePath.win32.join(host.homedir, 'AppData', 'Local');
    return nodePath.win32.join(local, 'Programs', 'wafer', 'bin', 'wafer.exe');
  }
  return nodePath.posix.join(host.homedir, '.local', 'bin', 'wafer');
}

export function locate(setting: string, extensionDir: string, host: Host): Located {
  const value = expandPath(setting, host);
  if (value !== '') {
    if (isName(value, host)) {
      const hit = searchPath(value, host);
      if (hit) return { found: true, path: hit, how: 'setting' };
      return { found: false, setting: value, searched: [`"${value}" on PATH`] };
    }
    const files = programFiles(value, host);
    const hit = files.find((f) => host.isExecutable(f));
    if (hit) return { found: true, path: hit, how: 'setting' };
    return { found: false, setting: value, searched: files };
  }
  const bundled = bundledPath(extensionDir, host);
  if (host.isExecutable(bundled)) return { found: true, path: bundled, how: 'extension' };
  const onPath = searchPath('wafer', host);
  if (onPath) return { found: true, path: onPath, how: 'PATH' };
  const installed = installPath(host);
  if (host.isExecutable(installed)) return { found: true, path: installed, how: 'install' };
  return { found: false, setting: '', searched: [bundled, 'wafer on PATH', installed] };
}

const HOW: Record<How, string> = {
  setting: 'the wafer.path setting',
  extension: "the extension's own binary",
  PATH: 'found on PATH',
  install: 'the default install folder',
};

// One line for the log and the status-bar tooltip: which binary, and how it was found.
export function describe(f: Found): string {
  return `${f.path} (${HOW[f.how]})`;
}

// What was searched and how to fix it, for the one notification shown when nothing is found.
export function notFoundMessage(n: NotFound, host: Host): string {
  if (n.setting !== '')
    return `wafer.path is "${n.setting}", but there is no program there (looked for ${n.searched.join(', ')}). Set wafer.path to the full path of ${host.platform === 'win32' ? 'wafer.exe' : 'the wafer binary'}, or clear it to search.`;
  return `no wafer binary found: looked for ${n.searched.join(', ')}. Install wafer into ${installPath(host)} or a folder on PATH, or set wafer.path to its full path.`;
}

// How to spawn `path`: directly (Node quotes each argument for Windows itself, so spaces
// and backslashes pass), except that Windows runs a .bat/.cmd only through cmd.exe, where
// the quoting is ours.
export function spawnCommand(path: string, args: string[], host: Host): { command: string; args: string[]; shell: boolean } {
  if (host.platform === 'win32' && /\.(bat|cmd)$/i.test(path)) {
    const q = (s: string): string => (/[\s"&|<>^()]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    return { command: q(path), args: args.map(q), shell: true };
  }
  return { command: path, args, shell: false };
}
