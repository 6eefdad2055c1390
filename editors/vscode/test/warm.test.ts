import { describe, expect, it } from 'vitest';
import { WarmTracker } from '../src/warm';

const at = (line: number, character: number, version = 1, uri = 'file:///a.py') => ({ uri, version, line, character });

describe('WarmTracker', () => {
  it('warms where an editor is shown, once per place', () => {
    const w = new WarmTracker();
    expect(w.cursor(at(3, 4), true)).toEqual({ textDocument: { uri: 'file:///a.py' }, position: { line: 3, character: 4 } });
    expect(w.cursor(at(3, 4), true)).toBeUndefined();
    expect(w.cursor(at(3, 4, 1, 'file:///b.py'), true)?.textDocument.uri).toBe('file:///b.py');
    expect(w.cursor(at(3, 4), true)?.position).toEqual({ line: 3, character: 4 }); // back to a.py: shown again
  });
  it('warms where navigation leaves the cursor, not where typing moves it', () => {
    const w = new WarmTracker();
    expect(w.cursor(at(0, 0), true)).toBeDefined();
    expect(w.cursor(at(7, 2), false)?.position).toEqual({ line: 7, character: 2 }); // a click
    expect(w.cursor(at(7, 3, 2), false)).toBeUndefined(); // a typed character
    expect(w.cursor(at(7, 4, 3), false)).toBeUndefined(); // another one
    expect(w.cursor(at(9, 0, 3), false)?.position).toEqual({ line: 9, character: 0 }); // then a jump
  });
  it('starts over for a closed document', () => {
    const w = new WarmTracker();
    w.cursor(at(1, 1), false);
    w.forget('file:///a.py');
    // Reopened with another version: not taken for typing, warmed.
    expect(w.cursor(at(1, 1, 5), false)?.position).toEqual({ line: 1, character: 1 });
  });
});
