// The daemon through vscode-languageclient: starts `wafer lsp` over stdio, lets the
// client's LSP 3.18 inline-completion support ask for suggestions (with a middleware that
// applies the per-language switch, measures latency and remembers what is shown), turns
// off the plain-completion fallback (VS Code shows ghost text itself), and shows each
// distinct daemon error once.
import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  ShowMessageNotification,
  MessageType,
  TransportKind,
} from 'vscode-languageclient/node';
import { initializationOptions, languageEnabled, serverCommand, type WaferSettings } from './config';
import type { Shown, SuggestionLog } from './inlineCompletion';

export const ACCEPTED_COMMAND = 'wafer.accepted';

export class WaferClient {
  private client: LanguageClient | undefined;
  private shownMessages = new Set<string>();

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly log: SuggestionLog,
    private readonly changed: () => void,
    private settings: WaferSettings,
  ) {}

  get running(): boolean {
    return this.client?.isRunning() ?? false;
  }

  async start(settings: WaferSettings): Promise<void> {
    this.settings = settings;
    const { command, args } = serverCommand(settings);
    const server: ServerOptions = { command, args, transport: TransportKind.stdio };
    const options: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      initializationOptions: initializationOptions(settings),
      middleware: {
        provideInlineCompletionItems: async (document, position, context, token, next) => {
          if (!languageEnabled(this.settings.enable, document.languageId)) return null;
          const t0 = this.log.begin();
          const result = await next(document, position, context, token);
          if (token.isCancellationRequested || !result) return result;
          const items = Array.isArray(result) ? result : result.items;
          const shown = items.map((item, index) => this.track(document, position, item, index));
          this.log.provided(document.uri.toString(), t0, shown);
          if (shown[0]) this.notify('textDocument/didShowCompletion', { item: shown[0].item });
          this.changed();
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
      this.changed();
      if (this.shownMessages.has(p.message)) return;
      this.shownMessages.add(p.message);
      const text = `wafer: ${p.message}`;
      if (p.type === MessageType.Error) void vscode.window.showErrorMessage(text);
      else if (p.type === MessageType.Warning) void vscode.window.showWarningMessage(text);
      else void vscode.window.showInformationMessage(text);
    });
    if (this.log.state === 'starting') this.log.state = 'ready';
    this.changed();
  }

  // Remembers an item for accept reports, and routes its accept through our command so
  // that a full accept is counted and the daemon's own command (if any) still runs.
  private track(document: vscode.TextDocument, position: vscode.Position, item: vscode.InlineCompletionItem, index: number): Shown {
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
  // need a restart (returned true).
  async reconfigure(settings: WaferSettings): Promise<boolean> {
    const old = this.settings;
    this.settings = settings;
    if (old.path !== settings.path || old.args.join('\0') !== settings.args.join('\0')) {
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
    const c = this.client;
    this.client = undefined;
    this.log.state = 'stopped';
    if (c) await c.stop();
    this.changed();
  }
}
