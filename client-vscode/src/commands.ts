/**
 * The palette commands (the server's own `surehand.ask`, `surehand.cancel`,
 * `surehand.reset`, `surehand.status` are registered by the language
 * client; these call them over `workspace/executeCommand`).
 */

import * as vscode from 'vscode';
import { ExecuteCommandRequest, type Middleware } from 'vscode-languageclient/node';
import { askArgument, resultMessage, type AskResult } from './ask';
import { isConnectionLoss } from './crash';
import { secretName } from './endpoint';
import { tell, type Notices } from './notify';
import type { ReviewController } from './review/controller';
import type { ServerManager } from './server';
import { endpoint, setEndpoint, setModel, type SetupParts } from './setup';
import type { Status } from './status';

const ASK_PROMPT = 'surehand.askPrompt';
const CANCEL = 'surehand.cancelTask';
const RESET = 'surehand.resetConversation';
const SHOW_TRACE = 'surehand.showTrace';
const SET_API_KEY = 'surehand.setApiKey';
const SET_ENDPOINT = 'surehand.setEndpoint';
const SET_MODEL = 'surehand.setModel';
const RESTART = 'surehand.restartServer';

/** The server's own commands. */
const SERVER_ASK = 'surehand.ask';
const SERVER_CANCEL = 'surehand.cancel';
const SERVER_RESET = 'surehand.reset';

export interface Parts {
  readonly context: vscode.ExtensionContext;
  readonly server: ServerManager;
  readonly review: ReviewController;
  readonly status: Status;
  readonly output: vscode.OutputChannel;
  readonly notices: Notices;
}

export function registerCommands(parts: Parts): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(ASK_PROMPT, () => ask(parts)),
    vscode.commands.registerCommand(CANCEL, () => cancel(parts)),
    vscode.commands.registerCommand(RESET, () => reset(parts)),
    vscode.commands.registerCommand(SHOW_TRACE, () => parts.output.show(true)),
    vscode.commands.registerCommand(SET_API_KEY, () => setApiKey(parts)),
    vscode.commands.registerCommand(SET_ENDPOINT, () => setEndpoint(setupParts(parts))),
    vscode.commands.registerCommand(SET_MODEL, () => setModel(setupParts(parts))),
    vscode.commands.registerCommand(RESTART, () => parts.server.restartNow()),
  ];
}

/**
 * Middleware: an ask through the `surehand.ask` command (the server's code
 * action "Ask surehand to fix this") reports like the palette's, whose
 * request goes to the server directly and so is not reported twice.
 */
export function reportingAsks(setup: () => SetupParts, notices: Notices): NonNullable<Middleware['executeCommand']> {
  return async (command, args, next) => {
    if (command !== SERVER_ASK) {
      return (await next(command, args)) as unknown;
    }
    if ((await endpoint(setup())) === undefined) {
      return undefined; // no endpoint set, and the user did not give one: nothing is sent
    }
    // A server started for the endpoint now set (a new one, when it was just given).
    const client = await setup().server.ready();
    if (client === undefined) {
      return undefined;
    }
    const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    void reportAsk(notices, result as AskResult);
    return result;
  };
}

async function execute(parts: Parts, command: string, args: unknown[] = []): Promise<unknown> {
  const client = await parts.server.ready(); // a server started for the current endpoint and key
  if (client === undefined) {
    await tell(parts.output, { severity: 'error', text: 'surehand: the language server is not running.' });
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

function setupParts(parts: Parts): SetupParts {
  return { secrets: parts.context.secrets, server: parts.server, output: parts.output };
}

async function ask(parts: Parts): Promise<void> {
  if ((await endpoint(setupParts(parts))) === undefined) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  // The file goes with the task only when it is in the workspace (the server refuses one outside).
  const inFile =
    editor?.document.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(editor.document.uri) !== undefined;
  const task = await vscode.window.showInputBox({
    title: 'Surehand: Ask',
    prompt: `What should surehand do?${inFile ? ' (the active file and selection go with it)' : ''}`,
    placeHolder: 'e.g. fix the off-by-one in parse_dmy and make the tests pass',
    ignoreFocusOut: true,
  });
  if (task === undefined || task.trim() === '') {
    return;
  }
  const context = inFile && editor ? { uri: editor.document.uri.toString(), selection: editor.selection } : undefined;
  parts.status.working('starting');
  try {
    const result = (await execute(parts, SERVER_ASK, [askArgument(task, context)])) as AskResult | undefined;
    if (result !== undefined) {
      await reportAsk(parts.notices, result);
    }
  } catch (error) {
    parts.output.appendLine(`Ask failed: ${String(error)}`);
    if (!isConnectionLoss(error)) {
      // A lost connection is the crash report's to tell, with what to do.
      await tell(parts.output, { severity: 'error', text: `surehand: the task failed: ${String(error)}` });
    }
  } finally {
    parts.status.working(undefined);
  }
}

/** Log an ask's result and tell the user (also for asks from the server's code actions). */
async function reportAsk(notices: Notices, result: AskResult | null | undefined): Promise<void> {
  notices.output.appendLine(`Ask: ${JSON.stringify(result)}`);
  await notices.tellResult(resultMessage(result, notices.tally()), result?.summary);
}

/** Stop the running task; a proposal under review is rejected (which ends the task). */
async function cancel(parts: Parts): Promise<void> {
  if (parts.review.decideAll('rejected')) {
    return;
  }
  await execute(parts, SERVER_CANCEL);
}

/** Forget the conversation (and reject a proposal under review). */
async function reset(parts: Parts): Promise<void> {
  parts.review.decideAll('rejected');
  if ((await execute(parts, SERVER_RESET)) !== undefined) {
    void vscode.window.showInformationMessage('surehand: the conversation was reset.');
  }
}

/**
 * Store the key in SecretStorage (never in settings, never logged), bound
 * to the endpoint it is for: it only ever goes to that base URL. The
 * server restarts with it.
 */
async function setApiKey(parts: Parts): Promise<void> {
  const before = parts.server.configuredBaseUrl();
  const baseUrl = await endpoint(setupParts(parts));
  if (baseUrl === undefined) {
    return;
  }
  if (before === undefined && (await parts.context.secrets.get(secretName(baseUrl)))) {
    return; // the endpoint was just set up, and asked for its key there
  }
  const key = await vscode.window.showInputBox({
    title: 'Surehand: Set API Key',
    prompt: `The API key for ${baseUrl}, kept in VS Code's secret storage and sent only there. Leave empty to remove it.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) {
    return;
  }
  if (key.trim() === '') {
    await parts.context.secrets.delete(secretName(baseUrl));
    parts.output.appendLine(`API key for ${baseUrl} removed from secret storage.`);
  } else {
    await parts.context.secrets.store(secretName(baseUrl), key.trim());
    parts.output.appendLine(`API key for ${baseUrl} stored in secret storage.`);
  }
  // The secret's change event restarts the server with the new key.
}
