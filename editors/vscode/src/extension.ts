// wafer for VS Code: starts the daemon (client.ts), shows its suggestions through VS
// Code's inline-completion (ghost text) UI, and adds the accept-word/line, next/previous
// and trigger commands, a status bar item with the last latency and model state, and an
// output channel with the daemon's log.
import * as vscode from 'vscode';
import { languageEnabled, readSettings, type WaferSettings } from './config';
import { ACCEPTED_COMMAND, WaferClient } from './client';
import { SuggestionLog, statusText } from './inlineCompletion';
import { WarmTracker } from './warm';

let client: WaferClient | undefined;

function settings(): WaferSettings {
  const cfg = vscode.workspace.getConfiguration('wafer');
  return readSettings((key) => cfg.get(key));
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('wafer', { log: true });
  const log = new SuggestionLog();
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = 'wafer.showStats';
  const refresh = (): void => {
    const s = statusText(log);
    status.text = s.text;
    status.tooltip = s.tooltip;
  };
  refresh();
  status.show();
  const wc = new WaferClient(output, log, refresh, settings());
  client = wc;

  // After VS Code's own partial accept: tell the daemon how much of the suggestion the
  // document now holds.
  const partial = async (builtin: string): Promise<void> => {
    await vscode.commands.executeCommand(builtin);
    const editor = vscode.window.activeTextEditor;
    const shown = log.current;
    if (!editor || !shown) return;
    const start = new vscode.Position(shown.start.line, shown.start.character);
    const cursor = editor.selection.active;
    if (cursor.isBefore(start)) return;
    const report = log.partialAccept(editor.document.uri.toString(), editor.document.getText(new vscode.Range(start, cursor)));
    if (report) wc.notify('textDocument/didPartiallyAcceptCompletion', report);
    refresh();
  };

  // Warm-up: where the cursor comes to rest without typing, the daemon prefills the prompt.
  const warm = new WarmTracker();
  let warmTimer: ReturnType<typeof setTimeout> | undefined;
  const warmAt = (editor: vscode.TextEditor | undefined, shown: boolean): void => {
    const s = settings();
    if (!editor || !s.warm || editor.document.uri.scheme !== 'file' || !languageEnabled(s.enable, editor.document.languageId))
      return;
    const pos = editor.selection.active;
    const doc = editor.document;
    const params = warm.cursor({ uri: doc.uri.toString(), version: doc.version, line: pos.line, character: pos.character }, shown);
    if (params) wc.notify('wafer/warm', params);
  };

  context.subscriptions.push(
    output,
    status,
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      // After the editor's didOpen has gone out.
      setTimeout(() => warmAt(editor, true), 100);
    }),
    vscode.window.onDidChangeTextEditorSelection((e) => {
      if (warmTimer) clearTimeout(warmTimer);
      warmTimer = setTimeout(() => warmAt(e.textEditor, false), 250);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => warm.forget(doc.uri.toString())),
    { dispose: () => warmTimer && clearTimeout(warmTimer) },
    vscode.commands.registerCommand('wafer.acceptWord', () => partial('editor.action.inlineSuggest.acceptNextWord')),
    vscode.commands.registerCommand('wafer.acceptLine', () => partial('editor.action.inlineSuggest.acceptNextLine')),
    vscode.commands.registerCommand('wafer.next', () => vscode.commands.executeCommand('editor.action.inlineSuggest.showNext')),
    vscode.commands.registerCommand('wafer.previous', () => vscode.commands.executeCommand('editor.action.inlineSuggest.showPrevious')),
    vscode.commands.registerCommand('wafer.trigger', () => vscode.commands.executeCommand('editor.action.inlineSuggest.trigger')),
    vscode.commands.registerCommand('wafer.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('wafer.restart', async () => {
      await wc.stop();
      await wc.start(settings());
    }),
    vscode.commands.registerCommand('wafer.showStats', async () => {
      const stats = await wc.request<unknown>('wafer/stats', {}).catch((e: unknown) => String(e));
      output.appendLine(`[stats] client: ${JSON.stringify(log.counts)}, last latency ${log.lastLatencyMs?.toFixed(1) ?? 'n/a'} ms`);
      output.appendLine(`[stats] daemon: ${JSON.stringify(stats)}`);
      output.show(true);
    }),
    vscode.commands.registerCommand(ACCEPTED_COMMAND, async (_index: number, original?: vscode.Command) => {
      log.fullAccept();
      refresh();
      if (original?.command) await wc.request('workspace/executeCommand', { command: original.command, arguments: original.arguments ?? [] });
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) log.edited(e.document.uri.toString());
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('wafer')) await wc.reconfigure(settings());
    }),
  );

  try {
    await wc.start(settings());
  } catch (e) {
    log.state = 'error';
    refresh();
    const msg = e instanceof Error ? e.message : String(e);
    output.appendLine(`wafer: could not start the daemon: ${msg}`);
    void vscode.window.showErrorMessage(`wafer: could not start \`${settings().path} lsp\`: ${msg}. Set "wafer.path".`);
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
