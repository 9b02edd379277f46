/**
 * Starting, restarting and stopping the language server.
 *
 * The interpreter is the first of `candidates()` (the setting
 * `surehand.python`, then `python3`) that can `import lsp_server`; each
 * step is logged to the output channel. None can: an error message offers
 * to open the setting or to copy the install command. The server runs as
 * `<python> -m lsp_server` over stdio, in the first workspace folder.
 * Restarts (a new interpreter, a new API key) coalesce: a burst of changes
 * restarts the server once.
 */

import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  LanguageClient,
  RevealOutputChannelOn,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { Coalescer } from './coalesce';
import { candidates, installCommand } from './interpreter';
import { tell } from './notify';
import { checkImport, repositoryOf } from './python';
import { redact } from './redact';
import { initializationOptions, SECTION } from './settings';
import type { Status } from './status';

export const API_KEY_SECRET = 'surehand.apiKey';
const RESTART_QUIET_MS = 400;
const OPEN_SETTINGS = 'Open Settings';
const COPY_INSTALL = 'Copy install command';

/** What the rest of the extension hooks into each new client. */
export interface ClientHooks {
  readonly middleware: Middleware;
  /** Called before the client starts (register handlers here: they survive its start). */
  attach(client: LanguageClient): void;
  /** Called when the client is about to stop. */
  detach(): void;
}

export class ServerManager implements vscode.Disposable {
  private current: LanguageClient | undefined;
  private readonly restarts = new Coalescer(RESTART_QUIET_MS, () => this.restartNow());

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly status: Status,
    private readonly hooks: ClientHooks,
  ) {}

  /** The client, when it is running. */
  get client(): LanguageClient | undefined {
    return this.current?.isRunning() ? this.current : undefined;
  }

  async start(): Promise<void> {
    this.status.server('starting');
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const python = await this.interpreter(cwd);
    if (python === undefined) {
      this.status.server('stopped', 'no Python with lsp_server');
      return;
    }
    const apiKey = await this.context.secrets.get(API_KEY_SECRET);
    const serverOptions: ServerOptions = {
      command: python,
      args: ['-m', 'lsp_server'], // stdio; no `transport`, which would add a `--stdio` the server refuses
      options: { cwd },
    };
    const channel = redacting(this.output, apiKey);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: channel,
      traceOutputChannel: channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: initializationOptions(vscode.workspace.getConfiguration(SECTION), apiKey),
      synchronize: { configurationSection: SECTION },
      middleware: this.hooks.middleware,
    };
    const client = new LanguageClient('surehand', 'surehand', serverOptions, clientOptions);
    this.hooks.attach(client);
    this.current = client;
    this.output.appendLine(`Starting: ${python} -m lsp_server (in ${cwd ?? 'no workspace folder'})`);
    try {
      await client.start();
      this.status.server('running');
      this.output.appendLine('The server is running.');
    } catch (error) {
      this.status.server('stopped', 'the server did not start');
      this.output.appendLine(`The server did not start: ${String(error)}`);
      const text = `surehand: the language server did not start (${python} -m lsp_server).`;
      void tell(this.output, { severity: 'error', text });
    }
  }

  /** Restart soon; more calls in the meantime make it one restart. */
  restart(): void {
    this.restarts.trigger();
  }

  async stop(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    if (client === undefined) {
      return;
    }
    this.hooks.detach();
    try {
      if (client.isRunning()) {
        await client.dispose(2000);
      }
    } catch (error) {
      this.output.appendLine(`Stopping the server: ${String(error)}`);
    }
  }

  async dispose(): Promise<void> {
    this.restarts.dispose();
    await this.stop();
  }

  private async restartNow(): Promise<void> {
    this.output.appendLine('Restarting the server…');
    await this.stop();
    await this.start();
  }

  /** The first candidate interpreter that imports the server, each step logged. */
  private async interpreter(cwd: string | undefined): Promise<string | undefined> {
    const setting = vscode.workspace.getConfiguration(SECTION).get<string>('python');
    const tried: { python: string; exists: boolean }[] = [];
    for (const candidate of candidates(setting, { home: os.homedir(), workspaceFolder: cwd })) {
      const check = await checkImport(candidate.python, cwd);
      const verdict = check.ok ? 'lsp_server importable' : `not usable: ${check.reason}`;
      this.output.appendLine(`Interpreter ${candidate.python} (${candidate.source}): ${verdict}`);
      if (check.ok) {
        return candidate.python;
      }
      tried.push({ python: candidate.python, exists: check.reason !== 'not found' });
    }
    // The install command names the first interpreter that exists.
    const target = tried.find((t) => t.exists) ?? tried[tried.length - 1];
    void this.explainMissing(tried.map((t) => t.python), target.python);
    return undefined;
  }

  private async explainMissing(tried: string[], python: string): Promise<void> {
    const command = installCommand(python, repositoryOf(this.context.extensionPath));
    this.output.appendLine(`No interpreter can import lsp_server. Install it with: ${command}`);
    const choice = await vscode.window.showErrorMessage(
      `surehand: no Python with the surehand language server (tried ${tried.join(', ')}). ` +
        `Set "surehand.python" to one that has it, or install it: ${command}`,
      OPEN_SETTINGS,
      COPY_INSTALL,
    );
    if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'surehand.python');
    } else if (choice === COPY_INSTALL) {
      await vscode.env.clipboard.writeText(command);
      void vscode.window.showInformationMessage(`surehand: copied "${command}" to the clipboard.`);
    }
  }
}

/** `channel`, with `secret` redacted from everything written to it; disposing it leaves `channel` open. */
function redacting(channel: vscode.OutputChannel, secret: string | undefined): vscode.OutputChannel {
  const show = (column?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void =>
    typeof column === 'boolean' || column === undefined ? channel.show(column) : channel.show(column, preserveFocus);
  return {
    name: channel.name,
    append: (value) => channel.append(redact(value, secret)),
    appendLine: (value) => channel.appendLine(redact(value, secret)),
    replace: (value) => channel.replace(redact(value, secret)),
    clear: () => channel.clear(),
    show: show as vscode.OutputChannel['show'],
    hide: () => channel.hide(),
    dispose: () => undefined,
  };
}
