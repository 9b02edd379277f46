/**
 * Undoing a whole accepted task: what the server's `surehand.history` and
 * `surehand.undoTask` answer (docs/protocol.md), the question asked before
 * an undo and what its result tells the person. Free of the `vscode`
 * module: `undoCommands.ts` gives it the server and the dialogs.
 *
 * Tasks are undone newest first, so the one offered is always the newest
 * not undone yet. The task's text, its paths and the server's reasons are
 * shown through the visible-escape rule (`visible.ts`): a task or a path
 * carrying an escape sequence or a bidi override reads as what it is.
 */

import type { Message } from './ask';
import type { Proposal } from './review/model';
import type { WorkspaceEdit } from './review/protocol';
import { visible, visibleLabel } from './visible';
import { count } from './words';

export const SERVER_HISTORY = 'surehand.history';
export const SERVER_UNDO_TASK = 'surehand.undoTask';

export type Operation = 'edit' | 'create' | 'delete' | 'rename';

export interface TaskFile {
  readonly path: string;
  readonly operation: Operation;
  /** A moved file's old path. */
  readonly source?: string;
}

export interface TaskEntry {
  readonly id: string;
  readonly task: string;
  /** ISO 8601. */
  readonly when: string;
  readonly front: string;
  readonly files: readonly TaskFile[];
  readonly undone: boolean;
}

/** `surehand.undoTask`'s result. */
export interface UndoResult {
  readonly undone: { readonly id: string; readonly task: string; readonly files: readonly string[] } | null;
  readonly refused: readonly { readonly path: string; readonly why: string }[];
  readonly summary: string;
}

/** The longest task text a question or a list shows (the rest is "…"). */
const TASK_CHARS = 120;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);

function taskFile(value: unknown): TaskFile {
  const file = record(value);
  const operation = text(file.operation);
  const known: Operation = operation === 'create' || operation === 'delete' || operation === 'rename' ? operation : 'edit';
  const source = text(file.source);
  return { path: text(file.path), operation: known, ...(source === '' ? {} : { source }) };
}

/** `surehand.history`'s result, read leniently: newest first, as the server sends it. */
export function readHistory(result: unknown): TaskEntry[] {
  return list(record(result).tasks).map((value) => {
    const task = record(value);
    return {
      id: text(task.id),
      task: text(task.task),
      when: text(task.when),
      front: text(task.front),
      files: list(task.files).map(taskFile),
      undone: task.undone === true,
    };
  });
}

/** `surehand.undoTask`'s result, read leniently. */
export function readUndoResult(result: unknown): UndoResult {
  const answer = record(result);
  const undone = answer.undone === null || answer.undone === undefined ? null : record(answer.undone);
  return {
    undone:
      undone === null
        ? null
        : { id: text(undone.id), task: text(undone.task), files: list(undone.files).map(text) },
    refused: list(answer.refused).map((value) => {
      const refused = record(value);
      return { path: text(refused.path), why: text(refused.why) };
    }),
    summary: text(answer.summary),
  };
}

/** The task an undo takes back: the newest not undone yet (none when every task kept is undone). */
export function lastUndoable(tasks: readonly TaskEntry[]): TaskEntry | undefined {
  return tasks.find((task) => !task.undone);
}

/** A task's text on one line, visible, cut at `TASK_CHARS`. */
export function taskText(task: string): string {
  const line = visible(task.trim());
  return [...line].length > TASK_CHARS ? `${[...line].slice(0, TASK_CHARS - 1).join('')}…` : line;
}

/** `a.py`, `new.py (new)`, `old.py (deleted)`, `b.py (moved from a.py)`: visible. */
export function fileWords(file: TaskFile): string {
  const path = visible(file.path);
  switch (file.operation) {
    case 'create':
      return `${path} (new)`;
    case 'delete':
      return `${path} (deleted)`;
    case 'rename':
      return file.source === undefined ? `${path} (moved)` : `${path} (moved from ${visible(file.source)})`;
    case 'edit':
      return path;
  }
}

export function filesWords(files: readonly TaskFile[]): string {
  return files.length === 0 ? 'no file' : files.map(fileWords).join(', ');
}

export interface UndoQuestion {
  /** The dialog's title line. */
  readonly message: string;
  /** Its body. */
  readonly detail: string;
  /** The button that undoes (the dialog adds Cancel). */
  readonly action: string;
}

/** "Undo “fix add”?" / "It changed calc.py, util.py (new)." */
export function undoQuestion(task: TaskEntry): UndoQuestion {
  return {
    message: `Undo “${taskText(task.task)}”?`,
    detail:
      `It changed ${filesWords(task.files)}.\n\n` +
      'Open files change in their buffers, unsaved. What you changed since in them is kept; ' +
      'where it clashes with the task’s lines nothing is undone.',
    action: 'Undo',
  };
}

export const NOTHING_TO_UNDO: Message = { severity: 'info', text: 'surehand: no accepted task to undo.' };

/** What an undo's result tells the person: the server's summary, and each refused file and why. */
export function undoMessage(result: UndoResult): Message {
  const summary = visible(result.summary.trim());
  if (result.undone !== null) {
    const files = result.undone.files.map((f) => visible(f)).join(', ');
    const said = summary || `undid “${taskText(result.undone.task)}”${files ? ` (${files})` : ''}.`;
    return { severity: 'info', text: `surehand: ${said}` };
  }
  if (result.refused.length === 0) {
    return { severity: 'info', text: `surehand: ${summary || 'nothing was undone.'}` };
  }
  // Each refused file and why, unless the summary says it already.
  const refused = result.refused
    .map((r) => `${visible(r.path)}: ${visible(r.why)}`)
    .filter((words) => !summary.includes(words));
  const said = summary || 'nothing was undone.';
  const more = refused.length === 0 ? '' : ` Not undone, to keep your changes: ${refused.join('; ')}.`;
  return { severity: 'warning', text: `surehand: ${said}${more}` };
}

/** What undoing needs from the editor and the server. */
export interface UndoSteps {
  /** `surehand.history`'s result; undefined when the server is not running (the person was told). */
  history(): Promise<unknown>;
  /** `surehand.undoTask`'s result for the task `id`. */
  undo(id: string): Promise<unknown>;
  /** Ask the person; true for "undo". */
  confirm(question: UndoQuestion): Promise<boolean>;
  tell(message: Message): Promise<void>;
}

/**
 * "Surehand: Undo Last Task": the newest task not undone (`id`, when given,
 * must be it: tasks are undone newest first), the person's "yes", the
 * undo, what it did. Undefined when the server's undo was not asked (no
 * task, no server, or the person said no).
 */
export async function undoLastTask(steps: UndoSteps, id?: string): Promise<UndoResult | undefined> {
  const history = await steps.history();
  if (history === undefined) {
    return undefined;
  }
  const tasks = readHistory(history);
  const task = lastUndoable(tasks);
  if (task === undefined) {
    await steps.tell(NOTHING_TO_UNDO);
    return undefined;
  }
  if (id !== undefined && id !== task.id) {
    await steps.tell(notNewest(tasks.find((t) => t.id === id), task));
    return undefined;
  }
  if (!(await steps.confirm(undoQuestion(task)))) {
    return undefined;
  }
  const answer = await steps.undo(task.id);
  if (answer === undefined) {
    return undefined;
  }
  const result = readUndoResult(answer);
  await steps.tell(undoMessage(result));
  return result;
}

/** Why `chosen` is not undone now: it is undone already, or a newer task comes first. */
export function notNewest(chosen: TaskEntry | undefined, newest: TaskEntry): Message {
  if (chosen?.undone === true) {
    return { severity: 'info', text: `surehand: “${taskText(chosen.task)}” is undone already.` };
  }
  return {
    severity: 'info',
    text: `surehand: tasks are undone newest first: “${taskText(newest.task)}” comes first.`,
  };
}

/** A row of "Surehand: Show Task History". */
export interface HistoryRow {
  readonly label: string;
  readonly description: string;
  readonly detail: string;
  readonly task: TaskEntry;
  /** The newest task not undone: picking it offers the undo. */
  readonly undoable: boolean;
}

/** `2026-05-09 14:03` in local time (the ISO text as it is when it does not parse). */
export function whenText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    return visible(iso);
  }
  const two = (n: number): string => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}`
  );
}

/** The history as quick-pick rows, newest first; labels also read `$(icon)` syntax, so they are escaped for it. */
export function historyRows(tasks: readonly TaskEntry[]): HistoryRow[] {
  const last = lastUndoable(tasks);
  return tasks.map((task) => {
    const state = task.undone ? 'undone' : task === last ? 'pick to undo' : 'undo the newer ones first';
    const where = task.front === 'terminal' ? ' · in the terminal' : '';
    return {
      label: visibleLabel(taskText(task.task)),
      description: `${whenText(task.when)}${where} · ${state}`,
      detail: visibleLabel(`${count(task.files.length, 'file')}: ${filesWords(task.files)}`),
      task,
      undoable: task === last,
    };
  });
}

/**
 * Whether a `workspace/applyEdit` that came while this window's undo waits
 * is that undo's: its label says so (`surehand: undo …`), or, without a
 * label, none of its changes is a proposal's hunk (`surehand-<n>`).
 */
export function isUndoEdit(label: string | undefined, edit: WorkspaceEdit): boolean {
  if (label !== undefined && label !== '') {
    return /^surehand\b[^:]*: undo\b/i.test(label);
  }
  return Object.keys(edit.changeAnnotations ?? {}).every((id) => !/^surehand-\d/.test(id));
}

/** Accept every hunk and file operation of `proposal` (an undo the person agreed to): it goes in whole. */
export function acceptWhole(proposal: Proposal): void {
  for (const file of proposal.files) {
    file.operation = 'accepted';
    for (const hunk of file.hunks) {
      hunk.decision = 'accepted';
    }
  }
}
