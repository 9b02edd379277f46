/**
 * Starting, restarting and stopping the language server.
 *
 * The interpreter: `surehand.python` when it can already `import
 * lsp_server` (a development install), else the extension's own virtual
 * environment (`environment.ts`), made on first start from the wheel the
 * `.vsix` ships, with a Python 3.11+ (`surehand.python`, else `python3` or
 * `python` from the PATH). Each step is logged to the output channel.
 *
 * A server is started for one endpoint: the base URL it gets and the key
 * stored for exactly that URL (`endpoint.ts`). A change of either, or of
 * the interpreter, restarts it; restarts coalesce. A server that stops on
 * its own is not restarted silently: the crash handler says so, with
 * "Show Trace" and "Restart".
 */

import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  type ClientCapabilities,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { Coalescer } from './coalesce';
import type { Exit } from './crash';
import { normalizeBaseUrl, sameLaunch, secretName, type Launch } from './endpoint';
import { compileLater } from './environment';
import { resolveInterpreter, tellReady, type FirstStart } from './firstStart';
import { expand } from './interpreter';
import { tell } from './notify';
import { redact } from './redact';
import { initializationOptions, SECTION, splitSettings } from './settings';
import type { Status } from './status';

const RESTART_QUIET_MS = 400;

/**
 * Tells the server that this client reviews proposals itself
 * (`experimental.surehand.review`, docs/review.md), so it keeps sending
 * whole proposals for the inline review instead of hunks as diagnostics.
 */
const REVIEWS_ITSELF: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, surehand: { review: 1 } };
  },
  initialize(): void {},
  getState: () => ({ kind: 'static' }),
  clear(): void {},
};

/** What the rest of the extension hooks into each new client. */
export interface ClientHooks {
  readonly middleware: Middleware;
  /** Called before the client starts (register handlers here: they survive its start). */
  attach(client: LanguageClient): void;
  /** Called when the extension stops the client. */
  detach(): void;
  /** Called when the server stopped on its own. */
  crashed(exit: Exit | undefined): void;
}

export class ServerManager implements vscode.Disposable {
  private current: LanguageClient | undefined;
  private launched: Launch | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  private readonly restarts = new Coalescer(RESTART_QUIET_MS, () => this.restartIfChanged());

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

  /** The base URL the running server was given (the only one its key may go to). */
  get baseUrl(): string | undefined {
    return this.launched?.baseUrl;
  }

  log(line: string): void {
    this.output.appendLine(line);
  }

  /** The base URL the settings name now, normalized (undefined when unset or invalid). */
  configuredBaseUrl(): string | undefined {
    return normalizeBaseUrl(vscode.workspace.getConfiguration(SECTION).get<string>('baseUrl'));
  }

  /** Start the server (one start at a time: a call while one runs waits for it). */
  start(): Promise<void> {
    this.starting ??= this.startNow().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Restart soon when what the server was started with changed; more calls in the meantime make it one check. */
  restart(): void {
    this.restarts.trigger();
  }

  /** Resolves once a server runs with the current settings and key (restarting it when they changed). */
  async ready(): Promise<LanguageClient | undefined> {
    await this.starting;
    await this.restartIfChanged();
    return this.client;
  }

  async stop(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    this.launched = undefined;
    if (client === undefined) {
      return;
    }
    this.hooks.detach();
    this.stopping = true;
    try {
      if (client.isRunning()) {
        await client.dispose(2000);
      }
    } catch (error) {
      this.output.appendLine(`Stopping the server: ${String(error)}`);
    } finally {
      this.stopping = false;
    }
  }

  async dispose(): Promise<void> {
    this.restarts.dispose();
    await this.stop();
  }

  /** Stop whatever is left and start anew (the "Restart" action). */
  async restartNow(): Promise<void> {
    this.output.appendLine('Restarting the server…');
    await this.stop();
    await this.start();
  }

  /** One check at a time: a restart for new settings and an ask's `ready()` never both restart. */
  private restartIfChanged(): Promise<void> {
    const next = this.checks.then(() => this.checkNow());
    this.checks = next.catch(() => undefined);
    return next;
  }

  private checks: Promise<void> = Promise.resolve();

  private async checkNow(): Promise<void> {
    await this.starting;
    const wanted = await this.launch(false);
    if (this.current !== undefined && wanted !== undefined && sameLaunch(this.launched, wanted)) {
      return;
    }
    if (this.current === undefined && this.launched === undefined && wanted === undefined) {
      return; // nothing to start with; start() has said why
    }
    await this.restartNow();
  }

  private async startNow(): Promise<void> {
    const started = Date.now();
    this.status.server('starting');
    const launch = await this.launch(true);
    if (launch === undefined) {
      this.status.server('stopped', 'no Python for the server');
      return;
    }
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    let exit: Exit | undefined;
    // Spawned here, not by the client, to know how the process ended.
    // async: an error spawning it becomes a rejected promise, which the client reports.
    // eslint-disable-next-line @typescript-eslint/require-await
    const serverOptions: ServerOptions = async (): Promise<ChildProcess> => {
      const env = { ...process.env };
      delete env.OPENAI_BASE_URL; // the endpoint is the setting, never one the user did not set here
      const child = spawn(launch.python, ['-m', 'lsp_server'], { cwd, env, stdio: 'pipe' });
      exit = undefined;
      child.on('exit', (code, signal) => {
        exit = { code, signal };
        this.output.appendLine(`The server process ended (${signal ?? `code ${code}`}).`);
      });
      return child;
    };
    const channel = redacting(this.output, launch.apiKey);
    const section = vscode.workspace.getConfiguration(SECTION);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: channel,
      traceOutputChannel: channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The user's settings and, apart, the workspace's own (held to an untrusted project's
      // rules by the server). VS Code's workspace trust is not project trust: a folder
      // trusted to open is not trusted to widen what commands see (`trustedProjects`).
      initializationOptions: initializationOptions(
        splitSettings((key) => section.inspect(key)),
        launch.baseUrl,
        launch.apiKey,
      ),
      synchronize: { configurationSection: SECTION },
      middleware: this.hooks.middleware,
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: async () => {
          if (!this.stopping) {
            // Give the exit event a moment: the pipe closes first.
            await new Promise((resolve) => setTimeout(resolve, 200));
            this.current = undefined;
            this.launched = undefined;
            this.status.server('stopped', 'the server stopped');
            this.hooks.crashed(exit);
          }
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new LanguageClient('surehand', 'surehand', serverOptions, clientOptions);
    client.registerFeature(REVIEWS_ITSELF);
    this.hooks.attach(client);
    this.current = client;
    this.launched = launch;
    this.output.appendLine(
      `Starting: ${launch.python} -m lsp_server (in ${cwd ?? 'no workspace folder'}; endpoint ${launch.baseUrl ?? 'not set'}, ` +
        `${launch.apiKey ? 'its stored key' : 'no stored key'})`,
    );
    try {
      await client.start();
      this.status.server('running');
      const made = this.made;
      this.made = undefined;
      if (made !== undefined) {
        const seconds = (Date.now() - started) / 1000;
        this.output.appendLine(`The server is running: first start in ${seconds.toFixed(1)} s.`);
        void tellReady(made, seconds, launch.baseUrl !== undefined);
        void compileLater(made.python, made.envDir, (line) => this.output.appendLine(line));
      } else {
        this.output.appendLine('The server is running.');
      }
    } catch (error) {
      this.current = undefined;
      this.launched = undefined;
      this.status.server('stopped', 'the server did not start');
      this.output.appendLine(`The server did not start: ${String(error)}`);
      const text = `surehand: the language server did not start (${launch.python} -m lsp_server).`;
      void tell(this.output, { severity: 'error', text });
    }
  }

  /** What a server would be started with now; undefined when there is no interpreter (`explain`: say why). */
  private async launch(explain: boolean): Promise<Launch | undefined> {
    const python = await this.interpreter(explain);
    if (python === undefined) {
      return undefined;
    }
    const baseUrl = this.configuredBaseUrl();
    const apiKey = baseUrl === undefined ? undefined : await this.context.secrets.get(secretName(baseUrl));
    return { python, baseUrl, apiKey: apiKey || undefined };
  }

  private resolved: { setting: string; python: string } | undefined;
  /** The environment this start made (for "surehand is ready" once the server runs). */
  private made: FirstStart | undefined;

  /** The interpreter that runs the server: a development install, else the extension's own environment. */
  private async interpreter(explain: boolean): Promise<string | undefined> {
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const raw = vscode.workspace.getConfiguration(SECTION).get<string>('python') ?? '';
    const setting = expand(raw, { home: os.homedir(), workspaceFolder: cwd });
    if (this.resolved?.setting === setting) {
      return this.resolved.python;
    }
    const places = {
      extensionPath: this.context.extensionPath,
      storage: this.context.globalStorageUri.fsPath,
      output: this.output,
      restart: () => this.restartNow(),
    };
    const found = await resolveInterpreter(places, setting, cwd, explain);
    if (found !== undefined) {
      this.resolved = { setting, python: found.python };
      this.made = found.made ?? this.made;
    }
    return found?.python;
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
    show,
    hide: () => channel.hide(),
    dispose: () => undefined,
  };
}
