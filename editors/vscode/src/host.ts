// What binary.ts needs from the operating system, behind one small interface so its unit
// tests can stand in for Linux, macOS or Windows on any machine. `nodeHost` is the real one.
import * as fs from 'node:fs';
import * as os from 'node:os';

export interface Host {
  platform: string; // process.platform: 'linux', 'darwin', 'win32', ...
  arch: string; // process.arch: 'x64', 'arm64', ...
  env: Record<string, string | undefined>;
  homedir: string;
  // Whether `path` is a file this user may run (on Windows: any file; the extension says
  // which names are programs).
  isExecutable(path: string): boolean;
}

export function nodeHost(): Host {
  const platform = process.platform;
  return {
    platform,
    arch: process.arch,
    env: process.env,
    homedir: os.homedir(),
    isExecutable: (path) => {
      try {
        if (!fs.statSync(path).isFile()) return false;
        if (platform !== 'win32') fs.accessSync(path, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}
