/**
 * The CodeLenses that carry the review's decisions.
 *
 * Above each hunk: "surehand: <label> — <what it does>", then "Accept",
 * "Reject", "Show Diff". A stale hunk: "surehand: <label> — stale: you
 * edited these lines; it can only be rejected", then "Reject". A decided
 * hunk (while others are pending): "Accepted: <label>" or
 * "Rejected: <label>", then "Undo". At the top of a file with a file
 * operation: "Accept New File" / "Reject New File", "Accept Deletion" /
 * "Reject Deletion" with "Show Diff", "Accept Rename to <name>" / "Reject Rename".
 * Every row fits the editor (`lensText.ts`); the tooltips name the keys.
 */

import * as vscode from 'vscode';
import type { ReviewController } from './controller';
import { SCHEME } from './documents';
import { lensRows } from './lensText';

export { ACCEPT, ACCEPT_FILE, REJECT, REJECT_FILE, SHOW_DIFF, UNDO, UNDO_FILE } from './lensText';

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
    const rows = lensRows(review.filesShownOn(document.uri), process.platform === 'darwin');
    return [...rows].flatMap(([line, lenses]) =>
      lenses.map((lens) => {
        const command = { title: lens.title, command: lens.command, arguments: [...lens.args], tooltip: lens.tooltip };
        return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), command);
      }),
    );
  }

  dispose(): void {
    this.subscriptions.forEach((s) => {
      s.dispose();
    });
    this.changed.dispose();
  }
}

