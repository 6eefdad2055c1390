import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locate } from '../src/binary';
import { nodeHost } from '../src/host';

// The real host on this machine's file system (the tests run on Linux or macOS).
describe.skipIf(process.platform === 'win32')('nodeHost', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wafer host '));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, 'bin dir');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'wafer'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'not-executable'), '', { mode: 0o644 });

  it('runs only executable files', () => {
    const h = nodeHost();
    expect(h.isExecutable(path.join(bin, 'wafer'))).toBe(true);
    expect(h.isExecutable(path.join(dir, 'not-executable'))).toBe(false);
    expect(h.isExecutable(bin)).toBe(false);
    expect(h.isExecutable(path.join(dir, 'missing'))).toBe(false);
  });
  it('finds wafer on PATH in a folder with a space', () => {
    const h = { ...nodeHost(), env: { PATH: [path.join(dir, 'none'), bin].join(path.delimiter) }, homedir: dir };
    expect(locate('', path.join(dir, 'ext'), h)).toEqual({ found: true, path: path.join(bin, 'wafer'), how: 'PATH' });
  });
});
