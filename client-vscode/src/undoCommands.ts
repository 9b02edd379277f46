/**
 * "Surehand: Undo Last Task" and "Surehand: Show Task History": the server's
 * `surehand.history` and `surehand.undoTask` behind a modal question (the
 * wording is `undoTask.ts`'s).
 *
 * The server changes the open files of the undo through `workspace/applyEdit`;
 * such an edit, sent while this window's undo waits for its answer, is put
 * in the buffers at once (unsaved, as an accepted proposal is), not shown
 * for review: the person said yes to it in the question (`undoEdit.ts`).
 */

import * as vscode from 'vscode';
import { ExecuteCommandRequest, type Middleware } from 'vscode-languageclient/node';
import { isConnectionLoss } from './crash';
import { tell } from './notify';
import type { ReviewController } from './review/controller';
import type { ServerManager } from './server';
import {
  historyRows,
  readHistory,
  SERVER_HISTORY,
  SERVER_UNDO_TASK,
  undoLastTask,
  type TaskEntry,
  type UndoSteps,
} from './undoTask';
import type { UndoEdits } from './undoEdit';
import { visible } from './visible';

export const UNDO_LAST_TASK = 'surehand.undoLastTask';
export const SHOW_HISTORY = 'surehand.showHistory';

export interface UndoParts {
  readonly server: ServerManager;
  readonly review: ReviewController;
  readonly output: vscode.OutputChannel;
  readonly edits: UndoEdits;
}

export function registerUndoCommands(parts: UndoParts): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(UNDO_LAST_TASK, () => guarded(parts, () => undoLastTask(steps(parts)))),
    vscode.commands.registerCommand(SHOW_HISTORY, () => guarded(parts, () => showHistory(parts))),
  ];
}

/** Not while a proposal is under review (its task is not over); a failure said, never thrown. */
async function guarded(parts: UndoParts, action: () => Promise<unknown>): Promise<void> {
  if (parts.review.review !== undefined) {
    void vscode.window.showWarningMessage('surehand: a proposal is under review; decide it before undoing a task.');
    return;
  }
  try {
    await action();
  } catch (error) {
    parts.output.appendLine(`Undo: ${String(error)}`);
    if (!isConnectionLoss(error)) {
      // A lost connection is the crash report's to tell.
      await tell(parts.output, { severity: 'error', text: `surehand: the undo failed: ${visible(String(error))}` });
    }
  }
}

function steps(parts: UndoParts): UndoSteps {
  return {
    history: () => execute(parts, SERVER_HISTORY, []),
    undo: (id) => parts.edits.during(() => execute(parts, SERVER_UNDO_TASK, [{ task: id }])),
    confirm: async (question) => {
      const chosen = await vscode.window.showWarningMessage(
        question.message,
        { modal: true, detail: question.detail },
        question.action,
      );
      return chosen === question.action;
    },
    tell: (message) => tell(parts.output, message),
  };
}

async function execute(parts: UndoParts, command: string, args: unknown[]): Promise<unknown> {
  const client = await parts.server.ready();
  if (client === undefined) {
    await tell(parts.output, { severity: 'error', text: 'surehand: the language server is not running.' });
    return undefined;
  }
  const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  parts.output.appendLine(`${command}: ${JSON.stringify(result)}`);
  return result ?? null;
}

interface HistoryPick extends vscode.QuickPickItem {
  readonly task: TaskEntry;
}

/** The tasks kept, newest first; picking the newest not undone offers its undo. */
async function showHistory(parts: UndoParts): Promise<void> {
  const result = await execute(parts, SERVER_HISTORY, []);
  if (result === undefined) {
    return;
  }
  const tasks = readHistory(result);
  if (tasks.length === 0) {
    await tell(parts.output, { severity: 'info', text: 'surehand: no accepted task is kept for this workspace.' });
    return;
  }
  const items: HistoryPick[] = historyRows(tasks);
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Surehand: Task History',
    placeHolder: 'Accepted tasks, newest first. Tasks are undone newest first: pick the newest not undone to undo it.',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked !== undefined) {
    await undoLastTask(steps(parts), picked.task.id);
  }
}

/**
 * Middleware: the server's own `surehand.undoTask` (its code action "undo
 * the last task", say) asks first too, and its edit goes in whole.
 */
export function confirmingUndo(
  parts: () => UndoParts,
  next: NonNullable<Middleware['executeCommand']>,
): NonNullable<Middleware['executeCommand']> {
  return async (command, args, send) => {
    if (command !== SERVER_UNDO_TASK) {
      return (await next(command, args, send)) as unknown;
    }
    const first: unknown = args[0];
    const id = typeof first === 'object' && first !== null ? (first as { task?: unknown }).task : undefined;
    let result: unknown;
    await guarded(parts(), async () => {
      result = await undoLastTask(steps(parts()), typeof id === 'string' ? id : undefined);
    });
    return result;
  };
}
