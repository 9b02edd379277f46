/**
 * The palette commands (the server's own `surehand.ask`, `surehand.cancel`,
 * `surehand.reset`, `surehand.status` are registered by the language
 * client; these call them over `workspace/executeCommand`).
 */

import * as vscode from 'vscode';
import { ExecuteCommandRequest, type Middleware } from 'vscode-languageclient/node';
import { askArgument, resultMessage, type AskResult } from './ask';
import { tell } from './notify';
import type { ReviewController } from './review/controller';
import { API_KEY_SECRET, type ServerManager } from './server';
import type { Status } from './status';

const ASK_PROMPT = 'surehand.askPrompt';
const CANCEL = 'surehand.cancelTask';
const RESET = 'surehand.resetConversation';
const SHOW_TRACE = 'surehand.showTrace';
const SET_API_KEY = 'surehand.setApiKey';

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
}

export function registerCommands(parts: Parts): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(ASK_PROMPT, () => ask(parts)),
    vscode.commands.registerCommand(CANCEL, () => cancel(parts)),
    vscode.commands.registerCommand(RESET, () => reset(parts)),
    vscode.commands.registerCommand(SHOW_TRACE, () => parts.output.show(true)),
    vscode.commands.registerCommand(SET_API_KEY, () => setApiKey(parts)),
  ];
}

/**
 * Middleware: an ask through the `surehand.ask` command (the server's code
 * action "Ask surehand to fix this") reports like the palette's, whose
 * request goes to the server directly and so is not reported twice.
 */
export function reportingAsks(output: vscode.OutputChannel): NonNullable<Middleware['executeCommand']> {
  return async (command, args, next) => {
    const result = await next(command, args);
    if (command === SERVER_ASK) {
      void reportAsk(output, result as AskResult);
    }
    return result;
  };
}

async function execute(parts: Parts, command: string, args: unknown[] = []): Promise<unknown> {
  const client = parts.server.client;
  if (client === undefined) {
    await tell(parts.output, { severity: 'error', text: 'surehand: the language server is not running.' });
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

async function ask(parts: Parts): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const inFile = editor?.document.uri.scheme === 'file';
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
      await reportAsk(parts.output, result);
    }
  } catch (error) {
    parts.output.appendLine(`Ask failed: ${String(error)}`);
    await tell(parts.output, { severity: 'error', text: `surehand: the task failed: ${String(error)}` });
  } finally {
    parts.status.working(undefined);
  }
}

/** Log an ask's result and tell the user (also for asks from the server's code actions). */
async function reportAsk(output: vscode.OutputChannel, result: AskResult | null | undefined): Promise<void> {
  output.appendLine(`Ask: ${JSON.stringify(result)}`);
  await tell(output, resultMessage(result));
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

/** Store the key in SecretStorage (never in settings, never logged); the server restarts with it. */
async function setApiKey(parts: Parts): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'Surehand: Set API Key',
    prompt: 'The API key for the model endpoint, kept in VS Code\'s secret storage. Leave empty to remove it.',
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) {
    return;
  }
  if (key.trim() === '') {
    await parts.context.secrets.delete(API_KEY_SECRET);
    parts.output.appendLine('API key removed from secret storage.');
  } else {
    await parts.context.secrets.store(API_KEY_SECRET, key.trim());
    parts.output.appendLine('API key stored in secret storage.');
  }
  // The secret's change event restarts the server with the new key.
}
