/**
 * The CodeLenses that carry the review's decisions.
 *
 * Above each hunk: "surehand: <label> — <what it does>", then "Accept",
 * "Reject", "Show Diff". A stale hunk: "surehand: <label> — stale: you
 * edited these lines; it can only be rejected", then "Reject". A decided
 * hunk (while others are pending): "Accepted: <label>" or
 * "Rejected: <label>", then "Undo". At the top of a file with a file
 * operation: "Accept New File" / "Reject New File", "Accept Deletion" /
 * "Reject Deletion", "Accept Rename" / "Reject Rename", with "Show Diff".
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReviewController } from './controller';
import { hunkLayout, hunkSummary, type HunkLayout } from './layout';
import type { FileReview, Hunk } from './model';
import { SCHEME } from './documents';
import { lineStarts } from './text';

export const ACCEPT = 'surehand.review.accept';
export const REJECT = 'surehand.review.reject';
export const UNDO = 'surehand.review.undo';
export const ACCEPT_FILE = 'surehand.review.acceptFile';
export const REJECT_FILE = 'surehand.review.rejectFile';
export const UNDO_FILE = 'surehand.review.undoFile';
export const SHOW_DIFF = 'surehand.review.showDiff';

const OPERATION_WORDS = {
  create: { name: 'new file', accept: 'Accept New File', reject: 'Reject New File' },
  delete: { name: 'delete', accept: 'Accept Deletion', reject: 'Reject Deletion' },
  rename: { name: 'rename to', accept: 'Accept Rename', reject: 'Reject Rename' },
} as const;

export class ReviewLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly controller: ReviewController) {
    this.subscriptions = [
      vscode.languages.registerCodeLensProvider([{ scheme: 'file' }, { scheme: SCHEME }], this),
      controller.onDidChange(() => this.changed.fire()),
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const review = this.controller.review;
    if (review === undefined) {
      return [];
    }
    return review.filesShownOn(document.uri).flatMap((file) => [...operationLenses(file), ...hunkLenses(file)]);
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.changed.dispose();
  }
}

function lens(line: number, title: string, command = '', args: unknown[] = []): vscode.CodeLens {
  return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), { title, command, arguments: args });
}

function operationLenses(file: FileReview): vscode.CodeLens[] {
  if (file.kind === 'edit') {
    return [];
  }
  const words = OPERATION_WORDS[file.kind];
  const name = path.posix.basename(vscode.Uri.parse(file.uri).path);
  const what = `${words.name} ${name}`;
  if (file.operation !== 'pending') {
    const done = file.operation === 'accepted' ? 'Accepted' : 'Rejected';
    return [lens(0, `${done}: ${what}`), lens(0, 'Undo', UNDO_FILE, [file.index])];
  }
  if (file.operationStale) {
    return [
      lens(0, `surehand: ${what} — stale: you edited this file; it can only be kept`),
      lens(0, words.reject, REJECT_FILE, [file.index]),
    ];
  }
  return [
    lens(0, `surehand: ${what} — ${file.label}`),
    lens(0, words.accept, ACCEPT_FILE, [file.index]),
    lens(0, words.reject, REJECT_FILE, [file.index]),
    lens(0, 'Show Diff', SHOW_DIFF, [file.index]),
  ];
}

/** A new file's hunks go with the file: only an existing file's hunks have lenses of their own. */
function hunkLenses(file: FileReview): vscode.CodeLens[] {
  if (file.kind === 'create') {
    return [];
  }
  const starts = lineStarts(file.text);
  return file.hunks.flatMap((hunk) => lensesOf(file, hunk, hunkLayout(file.text, hunk, starts)));
}

function lensesOf(file: FileReview, hunk: Hunk, layout: HunkLayout): vscode.CodeLens[] {
  const line = layout.lensLine;
  if (hunk.decision !== 'pending') {
    const done = hunk.decision === 'accepted' ? 'Accepted' : 'Rejected';
    return [lens(line, `${done}: ${hunk.label}`), lens(line, 'Undo', UNDO, [hunk.id])];
  }
  if (hunk.stale) {
    return [
      lens(line, `surehand: ${hunk.label} — stale: you edited these lines; it can only be rejected`),
      lens(line, 'Reject', REJECT, [hunk.id]),
    ];
  }
  return [
    lens(line, `surehand: ${hunk.label} — ${hunkSummary(layout)}`),
    lens(line, 'Accept', ACCEPT, [hunk.id]),
    lens(line, 'Reject', REJECT, [hunk.id]),
    lens(line, 'Show Diff', SHOW_DIFF, [file.index]),
  ];
}
