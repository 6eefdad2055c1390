// The daemon through vscode-languageclient: starts `wafer lsp` over stdio, lets the
// client's LSP 3.18 inline-completion support ask for suggestions (with a middleware that
// applies the on/off toggle and the per-language switch, streams the suggestion through
// stream.ts when `wafer.stream` is on, measures latency and remembers what is shown), turns
// off the plain-completion fallback (VS Code shows ghost text itself), and shows each
// distinct daemon error once. Which binary runs is binary.ts's choice, logged each start;
// which model serves is asked of the daemon (wafer/stats) once it has one, and logged.
import * as vscode from 'vscode';
import {
  CancellationTokenSource,
  InlineCompletionRequest,
  type InlineCompletionItem as LspItem,
  type InlineCompletionList as LspList,
  LanguageClient,
  type LanguageClientOptions,
  ProgressType,
  type ServerOptions,
  ShowMessageNotification,
  MessageType,
  TransportKind,
} from 'vscode-languageclient/node';
import { describe, locate, notFoundMessage, spawnCommand } from './binary';
import { initializationOptions, languageEnabled, serverArgs, type WaferSettings } from './config';
import type { Host } from './host';
import type { Shown, SuggestionLog } from './inlineCompletion';
import { describeModel } from './model';
import { type Started, type StreamKey, Streamer } from './stream';

type LspResult = LspList | LspItem[];
const partialType = new ProgressType<LspResult>();

export const ACCEPTED_COMMAND = 'wafer.accepted';

// No binary was found; the message says where the extension looked and how to fix it.
export class BinaryNotFoundError extends Error {}

export class WaferClient {
  private client: LanguageClient | undefined;
  private shownMessages = new Set<string>();
  private partialSeq = 0;
  readonly streamer: Streamer<LspResult>;
  // The binary that serves (found by start()), and each `wafer/stats` answer about the model.
  binaryPath: string | undefined;
  onStats: ((stats: unknown) => void) | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly log: SuggestionLog,
    private readonly changed: () => void,
    private settings: WaferSettings,
    private readonly enabled: () => boolean,
    private readonly extensionDir: string,
    private readonly host: Host,
  ) {
    // The first streamed text is shown: ask VS Code to call the provider again (while the
    // cursor is still where the stream is for); that call gets the final text.
    this.streamer = new Streamer<LspResult>((key) => {
      const editor = vscode.window.activeTextEditor;
      const pos = editor?.selection.active;
      if (!editor || !pos || !editor.selection.isEmpty) return;
      const doc = editor.document;
      if (doc.uri.toString() !== key.uri || doc.version !== key.version || pos.line !== key.line || pos.character !== key.character)
        return;
      void vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
    });
  }

  // One inline-completion request with a partialResultToken: the daemon's $/progress values
  // (the whole suggestion so far) go to `onPartial`.
  private startStream(
    document: vscode.TextDocument,
    position: vscode.Position,
    context: vscode.InlineCompletionContext,
  ): (key: StreamKey, onPartial: (value: LspResult) => void) => Started<LspResult> {
    return (_key, onPartial) => {
      const c = this.client;
      if (!c?.isRunning()) return { final: Promise.resolve(null), cancel: () => {} };
      const token = `wafer/inline/${++this.partialSeq}`;
      const cts = new CancellationTokenSource();
      const progress = c.onProgress(partialType, token, onPartial);
      const params = { ...c.code2ProtocolConverter.asInlineCompletionParams(document, position, context), partialResultToken: token };
      const final = c.sendRequest(InlineCompletionRequest.type, params, cts.token).then(
        (r) => r,
        () => null,
      );
      void final.finally(() => {
        progress.dispose();
        cts.dispose();
      });
      return { final, cancel: () => cts.cancel() };
    };
  }

  get running(): boolean {
    return this.client?.isRunning() ?? false;
  }

  async start(settings: WaferSettings): Promise<void> {
    this.settings = settings;
    const where = locate(settings.path, this.extensionDir, this.host);
    if (!where.found) {
      const msg = notFoundMessage(where, this.host);
      this.log.state = 'error';
      this.log.binary = undefined;
      this.log.problem = msg;
      this.output.error(msg);
      this.changed();
      throw new BinaryNotFoundError(msg);
    }
    this.log.binary = describe(where);
    this.binaryPath = where.path;
    this.log.problem = undefined;
    this.log.model = undefined;
    this.output.info(`using ${describe(where)}`);
    const spawn = spawnCommand(where.path, serverArgs(settings), this.host);
    const server: ServerOptions = spawn.shell
      ? { command: spawn.command, args: spawn.args, transport: TransportKind.stdio, options: { shell: true } }
      : { command: spawn.command, args: spawn.args, transport: TransportKind.stdio };
    const options: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      initializationOptions: initializationOptions(settings),
      middleware: {
        provideInlineCompletionItems: async (document, position, context, token, next) => {
          if (!this.enabled() || !languageEnabled(this.settings.enable, document.languageId)) return null;
          if (!this.settings.stream || !this.client) {
            const t0 = this.log.begin();
            const result = await next(document, position, context, token);
            if (token.isCancellationRequested || !result) return result;
            this.shown(document, position, result, t0, true);
            return result;
          }
          const key = { uri: document.uri.toString(), version: document.version, line: position.line, character: position.character };
          // An explicit request (the trigger key, next/previous) asks anew once the stream
          // here has finished; the re-trigger this extension makes is served from the stream.
          const reason =
            context.triggerKind !== vscode.InlineCompletionTriggerKind.Invoke
              ? 'automatic'
              : this.streamer.takeRetrigger()
                ? 'retrigger'
                : 'explicit';
          const t0 = this.log.now();
          const got = await this.streamer.provide(key, this.startStream(document, position, context), reason);
          if (!got.fromStream) this.log.counts.requests++;
          if (token.isCancellationRequested || got.value === undefined || !this.client) return null;
          const result = await this.client.protocol2CodeConverter.asInlineCompletionResult(got.value);
          if (!result) return null;
          if (got.fromStream) this.track(document, position, result, got.final);
          else this.shown(document, position, result, t0, got.final);
          return result;
        },
        // VS Code shows the suggestion as ghost text; the same text in the suggest widget
        // would only get in the way.
        provideCompletionItem: () => null,
      },
    };
    this.log.state = 'starting';
    this.shownMessages.clear();
    this.client = new LanguageClient('wafer', 'wafer', server, options);
    await this.client.start();
    this.client.onNotification(ShowMessageNotification.type, (p) => {
      if (p.type === MessageType.Error) this.log.state = 'error';
      else void this.refreshModel(); // (a model loaded is announced)
      this.changed();
      if (this.shownMessages.has(p.message)) return;
      this.shownMessages.add(p.message);
      const text = p.message.startsWith('wafer') ? p.message : `wafer: ${p.message}`; // (most say "wafer: " themselves)
      if (p.type === MessageType.Error) void vscode.window.showErrorMessage(text);
      else if (p.type === MessageType.Warning) void vscode.window.showWarningMessage(text);
      else void vscode.window.showInformationMessage(text);
    });
    if (this.log.state === 'starting') this.log.state = 'ready';
    this.changed();
  }

  // A new answer is shown: latency, counters, the item for accept reports; the daemon is told
  // when the final text shows.
  private shown(
    document: vscode.TextDocument,
    position: vscode.Position,
    result: vscode.InlineCompletionItem[] | vscode.InlineCompletionList,
    t0: number,
    final: boolean,
  ): void {
    const items = Array.isArray(result) ? result : result.items;
    const shown = items.map((item, index) => this.wrap(document, position, item, index));
    this.log.provided(document.uri.toString(), t0, shown);
    if (!this.log.model) void this.refreshModel();
    if (final && shown[0]) {
      this.reportedFor = this.streamer.counts.requests;
      this.notify('textDocument/didShowCompletion', { item: shown[0].item });
    }
    this.changed();
  }

  // Asks the daemon which model serves; a new answer goes to the log and the status bar.
  private async refreshModel(): Promise<void> {
    const stats = await this.request<unknown>('wafer/stats', {}).catch(() => undefined);
    const model = describeModel(stats);
    if (!model || model === this.log.model) return;
    this.onStats?.(stats);
    this.log.model = model;
    this.output.info(`model: ${model}`);
    this.changed();
  }

  // More text of a streamed suggestion is shown (a re-trigger).
  private track(
    document: vscode.TextDocument,
    position: vscode.Position,
    result: vscode.InlineCompletionItem[] | vscode.InlineCompletionList,
    final: boolean,
  ): void {
    const items = Array.isArray(result) ? result : result.items;
    const shown = items.map((item, index) => this.wrap(document, position, item, index));
    if (shown[0]) this.log.current = shown[0];
    if (final && shown[0] && this.reportedFor !== this.streamer.counts.requests) {
      this.reportedFor = this.streamer.counts.requests;
      this.notify('textDocument/didShowCompletion', { item: shown[0].item });
    }
  }
  private reportedFor = -1; // the stream whose final text the daemon was told is shown

  // Remembers an item for accept reports, and routes its accept through our command so
  // that a full accept is counted and the daemon's own command (if any) still runs.
  private wrap(document: vscode.TextDocument, position: vscode.Position, item: vscode.InlineCompletionItem, index: number): Shown {
    const text = typeof item.insertText === 'string' ? item.insertText : item.insertText.value;
    const range = item.range ?? new vscode.Range(position, position);
    const lspRange = {
      start: { line: range.start.line, character: range.start.character },
      end: { line: range.end.line, character: range.end.character },
    };
    const original = item.command;
    item.command = { command: ACCEPTED_COMMAND, title: 'wafer: accepted', arguments: [index, original] };
    return { uri: document.uri.toString(), insertText: text, start: lspRange.start, item: { insertText: text, range: lspRange } };
  }

  // Settings changed: the daemon takes most of them live; a new binary or arguments
  // need a restart (returned true), and a daemon not running (no binary found) is started.
  async reconfigure(settings: WaferSettings): Promise<boolean> {
    const old = this.settings;
    this.settings = settings;
    if (!this.client || old.path !== settings.path || old.args.join('\0') !== settings.args.join('\0')) {
      await this.stop();
      await this.start(settings);
      return true;
    }
    this.notify('workspace/didChangeConfiguration', { settings: { wafer: initializationOptions(settings) } });
    return false;
  }

  notify(method: string, params: object): void {
    if (this.client?.isRunning()) void this.client.sendNotification(method, params);
  }

  async request<T>(method: string, params: object): Promise<T | undefined> {
    if (!this.client?.isRunning()) return undefined;
    return this.client.sendRequest<T>(method, params);
  }

  async stop(): Promise<void> {
    this.streamer.cancel();
    const c = this.client;
    this.client = undefined;
    this.log.state = 'stopped';
    if (c) await c.stop();
    this.changed();
  }
}
