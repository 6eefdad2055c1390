// wafer for VS Code: starts the daemon (client.ts), shows its suggestions through VS
// Code's inline-completion (ghost text) UI, registers the commands (commands.ts), a status
// bar item with on/off, the last latency and the model state (a click toggles), and an
// output channel with the daemon's log and the binary in use; reports invalid settings once
// each, and a missing binary in one notification.
import { spawn } from 'node:child_process';
import * as vscode from 'vscode';
import { spawnCommand } from './binary';
import { commands } from './commands';
import { languageEnabled, readSettings, settingProblems, type WaferSettings } from './config';
import { ACCEPTED_COMMAND, BinaryNotFoundError, WaferClient } from './client';
import { nodeHost } from './host';
import { downloadModel, offerDraft, offerPull, suggestedDraft, suggestedPull, type Offer, type PullDeps } from './pull';
import { SuggestionLog, statusText } from './inlineCompletion';
import { WarmTracker } from './warm';

let client: WaferClient | undefined;

// Where each offer's once-only flag is kept.
const offerKey: Record<Offer, string> = { model: 'wafer.pullOffered', draft: 'wafer.draftOffered' };

// The model offer's VS Code side (pull.ts): notifications, the progress notification, the
// `wafer pull` process of the binary that serves, and the once-only flag in globalState.
function pullDeps(context: vscode.ExtensionContext, wc: WaferClient, output: vscode.LogOutputChannel): PullDeps {
  return {
    ask: async (message, actions) => vscode.window.showInformationMessage(message, ...actions),
    withProgress: async (title, task) =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) =>
        task(
          (increment, message) => progress.report({ increment, message }),
          () => token.isCancellationRequested,
        ),
      ),
    pull: (name, onLine, cancelled) =>
      new Promise((resolve) => {
        if (!wc.binaryPath) return resolve(1);
        const cmd = spawnCommand(wc.binaryPath, ['pull', name], nodeHost());
        output.info(`running ${cmd.command} ${cmd.args.join(' ')}`);
        const child = spawn(cmd.command, cmd.args, { shell: cmd.shell, stdio: ['ignore', 'pipe', 'pipe'] });
        let pending = '';
        child.stderr.on('data', (chunk: Buffer) => {
          pending += chunk.toString('utf8');
          const lines = pending.split(/[\r\n]/);
          pending = lines.pop() ?? '';
          for (const line of lines) {
            if (line.trim() !== '') output.info(line);
            onLine(line);
          }
        });
        const poll = setInterval(() => {
          if (cancelled()) child.kill();
        }, 200);
        child.on('error', (e) => {
          clearInterval(poll);
          onLine(`wafer pull: ${e.message}`);
          resolve(1);
        });
        child.on('close', (code) => {
          clearInterval(poll);
          if (pending !== '') onLine(pending);
          resolve(code);
        });
      }),
    modelsChanged: () => wc.notify('wafer/modelsChanged', {}),
    info: (message) => {
      output.info(message);
      void vscode.window.showInformationMessage(message);
    },
    error: (message) => {
      output.error(message);
      void vscode.window.showErrorMessage(message);
    },
    offered: (what) => context.globalState.get<boolean>(offerKey[what], false),
    setOffered: async (what) => context.globalState.update(offerKey[what], true),
  };
}

function settings(): WaferSettings {
  const cfg = vscode.workspace.getConfiguration('wafer');
  return readSettings((key) => cfg.get(key));
}

// Each distinct settings problem is shown once (a warning with a button to the settings).
const reported = new Set<string>();
function reportSettingProblems(output: vscode.LogOutputChannel): void {
  const cfg = vscode.workspace.getConfiguration('wafer');
  for (const p of settingProblems((key) => cfg.get(key))) {
    output.warn(p);
    if (reported.has(p)) continue;
    reported.add(p);
    void vscode.window.showWarningMessage(`wafer: ${p}`, 'Open Settings').then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'wafer.');
    });
  }
}

// Starts (or restarts) the daemon through `run`. A missing binary is shown in one
// notification, once per distinct message (the log has it every time); any other failure
// to start is shown as an error.
const startProblems = new Set<string>();
async function starting(run: () => Promise<unknown>, log: SuggestionLog, refresh: () => void, output: vscode.LogOutputChannel): Promise<void> {
  try {
    await run();
  } catch (e) {
    log.state = 'error';
    refresh();
    const msg = e instanceof Error ? e.message : String(e);
    if (!(e instanceof BinaryNotFoundError)) output.error(`could not start the daemon: ${msg}`);
    if (startProblems.has(msg)) return;
    startProblems.add(msg);
    const shown =
      e instanceof BinaryNotFoundError
        ? vscode.window.showWarningMessage(`wafer: ${msg}`, 'Open Settings', 'Show Log')
        : vscode.window.showErrorMessage(`wafer: could not start the daemon: ${msg}. Check "wafer.path".`, 'Open Settings', 'Show Log');
    void shown.then((pick) => {
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'wafer.path');
      else if (pick === 'Show Log') output.show(true);
    });
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('wafer', { log: true });
  const log = new SuggestionLog();
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = 'wafer.toggle';
  // Suggestions on/off (wafer.toggle), kept across restarts of VS Code.
  let enabled = context.globalState.get<boolean>('wafer.enabled', true);
  const refresh = (): void => {
    const s = statusText(log, enabled);
    status.text = s.text;
    status.tooltip = s.tooltip;
  };
  refresh();
  status.show();
  reportSettingProblems(output);
  const wc = new WaferClient(output, log, refresh, settings(), () => enabled, context.extensionPath, nodeHost());
  client = wc;
  // The bundled model serves: offer the better one once (never while a `wafer.model` is set);
  // a catalogue model serves without its draft: offer the draft once.
  const deps = pullDeps(context, wc, output);
  wc.onStats = (stats) => {
    const suggested = suggestedPull(stats);
    if (suggested && settings().model === '') void offerPull(suggested, deps);
    const draft = suggestedDraft(stats);
    if (draft) void offerDraft(draft, deps);
  };
  const cmds = commands({
    execute: (command, ...args) => vscode.commands.executeCommand(command, ...args),
    textToCursor: (start) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return undefined;
      const from = new vscode.Position(start.line, start.character);
      const cursor = editor.selection.active;
      if (cursor.isBefore(from)) return undefined;
      return { uri: editor.document.uri.toString(), text: editor.document.getText(new vscode.Range(from, cursor)) };
    },
    client: {
      notify: (method, params) => wc.notify(method, params),
      request: (method, params) => wc.request(method, params),
      start: () => starting(() => wc.start(settings()), log, refresh, output),
      stop: () => wc.stop(),
      cancelStream: () => wc.streamer.cancel(),
    },
    log,
    output: { show: () => output.show(true), appendLine: (line) => output.appendLine(line) },
    refresh,
    enabled: {
      get: () => enabled,
      set: (on) => {
        enabled = on;
        return context.globalState.update('wafer.enabled', on);
      },
    },
  });

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
    vscode.commands.registerCommand('wafer.acceptWord', cmds.acceptWord),
    vscode.commands.registerCommand('wafer.acceptLine', cmds.acceptLine),
    vscode.commands.registerCommand('wafer.next', cmds.next),
    vscode.commands.registerCommand('wafer.previous', cmds.previous),
    vscode.commands.registerCommand('wafer.trigger', cmds.trigger),
    vscode.commands.registerCommand('wafer.toggle', (on?: boolean) => cmds.toggle(on)),
    vscode.commands.registerCommand('wafer.showOutput', cmds.showOutput),
    vscode.commands.registerCommand('wafer.restart', cmds.restart),
    vscode.commands.registerCommand('wafer.showStats', cmds.showStats),
    vscode.commands.registerCommand('wafer.pull', async () => {
      const name = await vscode.window.showInputBox({
        title: 'wafer: Download a Model',
        prompt: 'A catalogue name (wafer pull --list) or a URL of a GGUF file',
        value: 'qwen2.5-coder-1.5b',
      });
      if (name) await downloadModel(name.trim(), deps);
    }),
    vscode.commands.registerCommand(ACCEPTED_COMMAND, async (_index: number, original?: vscode.Command) => {
      log.fullAccept();
      refresh();
      if (original?.command) await wc.request('workspace/executeCommand', { command: original.command, arguments: original.arguments ?? [] });
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length === 0) return;
      log.edited(e.document.uri.toString());
      // Typing ends the stream for the old text (the daemon drops it too).
      wc.streamer.documentChanged(e.document.uri.toString(), e.document.version);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('wafer')) return;
      reportSettingProblems(output);
      await starting(() => wc.reconfigure(settings()), log, refresh, output);
    }),
  );

  await starting(() => wc.start(settings()), log, refresh, output);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
