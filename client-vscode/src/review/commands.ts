/** The review's commands: the CodeLens actions, Show Diff, Accept All / Reject All, next hunk. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReviewController } from './controller';
import { proposedText } from './decide';
import type { ProposalDocuments } from './documents';
import { ACCEPT, ACCEPT_FILE, REJECT, REJECT_FILE, SHOW_DIFF, UNDO, UNDO_FILE } from './lenses';

const ACCEPT_ALL = 'surehand.acceptAll';
const REJECT_ALL = 'surehand.rejectAll';
const NEXT = 'surehand.review.next';

export function registerReviewCommands(
  controller: ReviewController,
  documents: ProposalDocuments,
): vscode.Disposable[] {
  const all = (decision: 'accepted' | 'rejected') => (): void => {
    if (!controller.decideAll(decision)) {
      void vscode.window.showInformationMessage('surehand: there is no proposal to review.');
    }
  };
  return [
    vscode.commands.registerCommand(ACCEPT, (id: string) => controller.decideHunk(id, 'accepted')),
    vscode.commands.registerCommand(REJECT, (id: string) => controller.decideHunk(id, 'rejected')),
    vscode.commands.registerCommand(UNDO, (id: string) => controller.decideHunk(id, 'pending')),
    vscode.commands.registerCommand(ACCEPT_FILE, (file: number) => controller.decideOperation(file, 'accepted')),
    vscode.commands.registerCommand(REJECT_FILE, (file: number) => controller.decideOperation(file, 'rejected')),
    vscode.commands.registerCommand(UNDO_FILE, (file: number) => controller.decideOperation(file, 'pending')),
    vscode.commands.registerCommand(SHOW_DIFF, (file: number) => showDiff(controller, documents, file)),
    vscode.commands.registerCommand(ACCEPT_ALL, all('accepted')),
    vscode.commands.registerCommand(REJECT_ALL, all('rejected')),
    vscode.commands.registerCommand(NEXT, () => controller.revealNext()),
  ];
}

/**
 * A diff of one file: its current text against the text with every hunk
 * not rejected (a new file against the empty text, a deleted one the other
 * way round). The editor's title ends with "(surehand proposal)".
 */
async function showDiff(controller: ReviewController, documents: ProposalDocuments, index: number): Promise<void> {
  const review = controller.review;
  const file = review?.proposal.files[index];
  if (review === undefined || file === undefined) {
    return;
  }
  const target = vscode.Uri.parse(file.uri);
  const source = vscode.Uri.parse(file.textUri);
  const name = path.posix.basename(target.path);
  let left: vscode.Uri;
  let right: vscode.Uri;
  let title: string;
  if (file.kind === 'create') {
    left = documents.set(target, 'empty', '');
    right = review.shown[file.index];
    title = `${name} (new file, surehand proposal)`;
  } else if (file.kind === 'delete') {
    left = source;
    right = documents.set(target, 'empty', '');
    title = `${name} (deleted, surehand proposal)`;
  } else {
    left = source;
    right = documents.set(target, 'proposed', proposedText(file));
    title = `${name} (current ↔ surehand proposal)`;
  }
  await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
}
