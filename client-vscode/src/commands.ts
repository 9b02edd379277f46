/**
 * The palette commands (the server's own `surehand.ask`, `surehand.cancel`,
 * `surehand.reset`, `surehand.status` are registered by the language
 * client; these call them over `workspace/executeCommand`).
 */

import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { askArgument, resultMessage, type AskResult, type Message } from './ask';
import type { ReviewController } from './review/controller';
import { API_KEY_SECRET, type ServerManager } from './server';
import type { Status } from './status';

export const ASK_PROMPT = 'surehand.askPrompt';
export const CANCEL = 'surehand.cancelTask';
export const RESET = 'surehand.resetConversation';
export const SHOW_TRACE = 'surehand.showTrace';
export const SET_API_KEY = 'surehand.setApiKey';

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

async function execute(parts: Parts, command: string, args: unknown[] = []): Promise<unknown> {
  const client = parts.server.client;
  if (client === undefined) {
    const choice = await vscode.window.showErrorMessage('surehand: the language server is not running.', 'Show Trace');
    if (choice === 'Show Trace') {
      parts.output.show(true);
    }
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
    const result = (await execute(parts, 'surehand.ask', [askArgument(task, context)])) as AskResult | undefined;
    if (result !== undefined) {
      await reportAsk(parts.output, result);
    }
  } catch (error) {
    parts.output.appendLine(`Ask failed: ${String(error)}`);
    await show(parts.output, { severity: 'error', text: `surehand: the task failed: ${String(error)}` });
  } finally {
    parts.status.working(undefined);
  }
}

/** Log an ask's result and tell the user (also for asks from the server's code actions). */
export async function reportAsk(output: vscode.OutputChannel, result: AskResult | null | undefined): Promise<void> {
  output.appendLine(`Ask: ${JSON.stringify(result)}`);
  await show(output, resultMessage(result));
}

async function show(output: vscode.OutputChannel, message: Message): Promise<void> {
  const shown =
    message.severity === 'info'
      ? vscode.window.showInformationMessage(message.text)
      : message.severity === 'warning'
        ? vscode.window.showWarningMessage(message.text, 'Show Trace')
        : vscode.window.showErrorMessage(message.text, 'Show Trace');
  if ((await shown) === 'Show Trace') {
    output.show(true);
  }
}

/** Stop the running task; a proposal under review is rejected (which ends the task). */
async function cancel(parts: Parts): Promise<void> {
  if (parts.review.decideAll('rejected')) {
    return;
  }
  await execute(parts, 'surehand.cancel');
}

/** Forget the conversation (and reject a proposal under review). */
async function reset(parts: Parts): Promise<void> {
  parts.review.decideAll('rejected');
  if ((await execute(parts, 'surehand.reset')) !== undefined) {
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
