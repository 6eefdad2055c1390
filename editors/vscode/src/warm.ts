// Warm-up (`wafer/warm`): where the cursor comes to rest without typing (an editor shown,
// a click, navigation keys), the daemon is told, and while idle it prefills the prompt a
// suggestion there would need, so the first suggestion comes sooner. This decides when to
// tell it; extension.ts feeds it VS Code's events (debounced). No `vscode` import, so it is
// unit-tested directly.

export interface CursorAt {
  uri: string;
  version: number; // the document's version
  line: number;
  character: number; // UTF-16 code units, as VS Code and the daemon's default encoding count
}

export interface WarmParams {
  textDocument: { uri: string };
  position: { line: number; character: number };
}

export class WarmTracker {
  private lastSent = '';
  private readonly versions = new Map<string, number>(); // uri -> version at its last cursor event

  // A cursor event; `shown`: an editor just became active. Returns the notification's
  // params, or undefined when there is nothing new to warm: the same place as last time,
  // or a cursor moved by an edit (typing: the completion request itself fills the cache).
  cursor(at: CursorAt, shown: boolean): WarmParams | undefined {
    const before = this.versions.get(at.uri);
    this.versions.set(at.uri, at.version);
    if (!shown && before !== undefined && before !== at.version) return undefined;
    const key = `${at.uri}\n${at.version}\n${at.line}\n${at.character}`;
    if (key === this.lastSent) return undefined;
    this.lastSent = key;
    return { textDocument: { uri: at.uri }, position: { line: at.line, character: at.character } };
  }

  // The document was closed.
  forget(uri: string): void {
    this.versions.delete(uri);
  }
}
