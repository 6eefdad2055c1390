import { describe, expect, it } from 'vitest';
import { describe as describeFound, expandPath, locate, notFoundMessage, pathFolders, spawnCommand } from '../src/binary';
import type { Host } from '../src/host';

// A fake OS: `files` are the executable files that exist (exact paths; Windows compares
// them without case, as its file systems do).
function fakeHost(platform: 'linux' | 'darwin' | 'win32', files: string[], env: Record<string, string> = {}): Host {
  const win = platform === 'win32';
  const key = (p: string): string => (win ? p.toLowerCase() : p);
  const set = new Set(files.map(key));
  return {
    platform,
    arch: platform === 'darwin' ? 'arm64' : 'x64',
    env,
    homedir: win ? 'C:\\Users\\Ann Lee' : platform === 'darwin' ? '/Users/ann' : '/home/ann',
    isExecutable: (p) => set.has(key(p)),
  };
}

const posix = [
  { platform: 'linux' as const, home: '/home/ann', ext: '/opt/ext', bundled: '/opt/ext/bin/linux-x64/wafer' },
  { platform: 'darwin' as const, home: '/Users/ann', ext: '/opt/ext', bundled: '/opt/ext/bin/darwin-arm64/wafer' },
];

for (const os of posix) {
  describe(`locate on ${os.platform}`, () => {
    const env = { PATH: '/usr/local/bin::/usr/bin', HOME: os.home };
    const all = [`${os.home}/bin/wafer`, os.bundled, '/usr/bin/wafer', `${os.home}/.local/bin/wafer`];

    it('uses the wafer.path setting first, with ~ and ${env:VAR} expanded', () => {
      const h = fakeHost(os.platform, all, { ...env, TOOLS: `${os.home}/bin` });
      expect(locate('~/bin/wafer', os.ext, h)).toEqual({ found: true, path: `${os.home}/bin/wafer`, how: 'setting' });
      expect(locate('${env:TOOLS}/wafer', os.ext, h)).toEqual({ found: true, path: `${os.home}/bin/wafer`, how: 'setting' });
      expect(locate('${userHome}/bin/wafer', os.ext, h)).toEqual({ found: true, path: `${os.home}/bin/wafer`, how: 'setting' });
    });
    it('looks a bare name in wafer.path up on PATH', () => {
      const h = fakeHost(os.platform, ['/usr/bin/wafer-dev'], env);
      expect(locate('wafer-dev', os.ext, h)).toEqual({ found: true, path: '/usr/bin/wafer-dev', how: 'setting' });
    });
    it('reports a wafer.path that leads nowhere instead of searching', () => {
      const h = fakeHost(os.platform, all, env);
      const r = locate('/nope/wafer', os.ext, h);
      expect(r).toEqual({ found: false, setting: '/nope/wafer', searched: ['/nope/wafer'] });
      if (!r.found) expect(notFoundMessage(r, h)).toContain('wafer.path is "/nope/wafer"');
    });
    it("then the extension's own bin/<platform>-<arch>/wafer", () => {
      const h = fakeHost(os.platform, all, env);
      expect(locate('', os.ext, h)).toEqual({ found: true, path: os.bundled, how: 'extension' });
    });
    it('then PATH, in order, skipping empty entries', () => {
      const h = fakeHost(os.platform, ['/usr/bin/wafer', `${os.home}/.local/bin/wafer`], env);
      expect(locate('', os.ext, h)).toEqual({ found: true, path: '/usr/bin/wafer', how: 'PATH' });
      expect(pathFolders(h)).toEqual(['/usr/local/bin', '/usr/bin']);
    });
    it('then ~/.local/bin/wafer', () => {
      const h = fakeHost(os.platform, [`${os.home}/.local/bin/wafer`], env);
      expect(locate('', os.ext, h)).toEqual({ found: true, path: `${os.home}/.local/bin/wafer`, how: 'install' });
    });
    it('says what it searched and how to fix it when nothing is there', () => {
      const h = fakeHost(os.platform, [], env);
      const r = locate('', os.ext, h);
      expect(r).toEqual({ found: false, setting: '', searched: [os.bundled, 'wafer on PATH', `${os.home}/.local/bin/wafer`] });
      if (!r.found) {
        const msg = notFoundMessage(r, h);
        expect(msg).toContain(os.bundled);
        expect(msg).toContain('PATH');
        expect(msg).toContain('set wafer.path');
      }
    });
    it('spawns the path as it is', () => {
      expect(spawnCommand('/opt/my tools/wafer', ['lsp'], fakeHost(os.platform, []))).toEqual({
        command: '/opt/my tools/wafer',
        args: ['lsp'],
        shell: false,
      });
    });
  });
}

describe('locate on win32', () => {
  const ext = 'C:\\Users\\Ann Lee\\.vscode\\extensions\\wafer.wafer-0.1.0';
  const bundled = `${ext}\\bin\\win32-x64\\wafer.exe`;
  const installed = 'C:\\Users\\Ann Lee\\AppData\\Local\\Programs\\wafer\\bin\\wafer.exe';
  const env = {
    Path: 'C:\\Windows\\system32;"C:\\Program Files\\wafer\\bin";;C:\\tools',
    PATHEXT: '.COM;.EXE;.BAT;.CMD',
    LOCALAPPDATA: 'C:\\Users\\Ann Lee\\AppData\\Local',
  };

  it('uses wafer.path with %VAR%, ${env:VAR}, ~ and forward slashes', () => {
    const h = fakeHost('win32', ['D:\\wafer build\\bin\\wafer.exe', installed], { ...env, WAFER_HOME: 'D:\\wafer build' });
    expect(locate('%WAFER_HOME%\\bin\\wafer.exe', ext, h)).toEqual({ found: true, path: 'D:\\wafer build\\bin\\wafer.exe', how: 'setting' });
    expect(locate('${env:wafer_home}/bin/wafer.exe', ext, h)).toEqual({ found: true, path: 'D:\\wafer build\\bin\\wafer.exe', how: 'setting' });
    expect(locate('D:/wafer build/bin/wafer', ext, h)).toEqual({ found: true, path: 'D:\\wafer build\\bin\\wafer.exe', how: 'setting' });
    expect(locate('"D:\\wafer build\\bin\\wafer.exe"', ext, h)).toEqual({ found: true, path: 'D:\\wafer build\\bin\\wafer.exe', how: 'setting' });
    expect(locate('~\\AppData\\Local\\Programs\\wafer\\bin\\wafer.exe', ext, h)).toEqual({ found: true, path: installed, how: 'setting' });
  });
  it('keeps an unset %VAR% as it is', () => {
    expect(expandPath('%NOPE%\\wafer.exe', fakeHost('win32', [], env))).toBe('%NOPE%\\wafer.exe');
  });
  it("then the extension's own bin\\win32-x64\\wafer.exe", () => {
    const h = fakeHost('win32', [bundled, 'C:\\tools\\wafer.exe', installed], env);
    expect(locate('', ext, h)).toEqual({ found: true, path: bundled, how: 'extension' });
  });
  it('then PATH (the variable named Path, quoted folders, PATHEXT)', () => {
    const h = fakeHost('win32', ['C:\\Program Files\\wafer\\bin\\wafer.exe', 'C:\\tools\\wafer.exe', installed], env);
    expect(locate('', ext, h)).toEqual({ found: true, path: 'C:\\Program Files\\wafer\\bin\\wafer.exe', how: 'PATH' });
    expect(pathFolders(h)).toEqual(['C:\\Windows\\system32', 'C:\\Program Files\\wafer\\bin', 'C:\\tools']);
  });
  it('finds wafer.exe on PATH even without PATHEXT, and a .cmd through PATHEXT', () => {
    const noExt = fakeHost('win32', ['C:\\tools\\wafer.exe'], { PATH: 'C:\\tools' });
    expect(locate('', ext, noExt)).toEqual({ found: true, path: 'C:\\tools\\wafer.exe', how: 'PATH' });
    const cmd = fakeHost('win32', ['C:\\tools\\wafer.cmd'], env);
    expect(locate('', ext, cmd)).toEqual({ found: true, path: 'C:\\tools\\wafer.cmd', how: 'PATH' });
  });
  it('then %LOCALAPPDATA%\\Programs\\wafer\\bin\\wafer.exe', () => {
    const h = fakeHost('win32', [installed], env);
    expect(locate('', ext, h)).toEqual({ found: true, path: installed, how: 'install' });
    const noLocal = fakeHost('win32', [installed], { Path: env.Path });
    expect(locate('', ext, noLocal)).toEqual({ found: true, path: installed, how: 'install' });
  });
  it('says what it searched when nothing is there', () => {
    const h = fakeHost('win32', [], env);
    const r = locate('', ext, h);
    expect(r).toEqual({ found: false, setting: '', searched: [bundled, 'wafer on PATH', installed] });
    if (!r.found) expect(notFoundMessage(r, h)).toContain('Install wafer into C:\\Users\\Ann Lee\\AppData\\Local\\Programs\\wafer\\bin\\wafer.exe');
  });
  it('reports a wafer.path without a program, with the names it tried', () => {
    const h = fakeHost('win32', [], env);
    const r = locate('C:\\wafer\\wafer', ext, h);
    expect(r.found).toBe(false);
    if (!r.found) expect(r.searched).toContain('C:\\wafer\\wafer.exe');
  });
  it('spawns an .exe directly and a .cmd through cmd.exe, quoted', () => {
    const h = fakeHost('win32', []);
    expect(spawnCommand('C:\\Program Files\\wafer\\bin\\wafer.exe', ['lsp'], h)).toEqual({
      command: 'C:\\Program Files\\wafer\\bin\\wafer.exe',
      args: ['lsp'],
      shell: false,
    });
    expect(spawnCommand('C:\\Program Files\\wafer\\wafer.cmd', ['lsp', '--model', 'C:\\m 1.gguf'], h)).toEqual({
      command: '"C:\\Program Files\\wafer\\wafer.cmd"',
      args: ['lsp', '--model', '"C:\\m 1.gguf"'],
      shell: true,
    });
  });
});

describe('describe', () => {
  it('names the binary and how it was found', () => {
    expect(describeFound({ found: true, path: '/usr/bin/wafer', how: 'PATH' })).toBe('/usr/bin/wafer (found on PATH)');
    expect(describeFound({ found: true, path: '/x/wafer', how: 'setting' })).toBe('/x/wafer (the wafer.path setting)');
  });
});
