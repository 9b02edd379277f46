/** The review's commands: the CodeLens actions, the keys' (at the cursor, next, previous), Show Diff, all. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChangeNode } from './changes';
import type { ReviewController } from './controller';
import { proposedText } from './decide';
import type { ProposalDocuments } from './documents';
import type { Decision } from './model';
import { COMMANDS, noReviewText } from './keys';
import { visible } from '../visible';
import { ACCEPT, ACCEPT_FILE, REJECT, REJECT_FILE, SHOW_DIFF, UNDO, UNDO_FILE } from './lenses';

const REVEAL = 'surehand.review.reveal';

export function registerReviewCommands(
  controller: ReviewController,
  documents: ProposalDocuments,
): vscode.Disposable[] {
  // The decision keys are bound outside a review too: there they say so, instead of
  // falling through to another binding (code-server's Ctrl+Alt+N opens an Untitled file).
  const open = (command: string): boolean => {
    if (controller.review === undefined) {
      void vscode.window.showInformationMessage(noReviewText(command, process.platform === 'darwin'));
      return false;
    }
    return true;
  };
  const all = (decision: 'accepted' | 'rejected', command: string) => (): void => {
    if (!open(command) || (decision === 'accepted' && !controller.keyReady())) {
      return;
    }
    controller.decideAll(decision);
  };
  const here = (command: string, decide: () => Promise<void>) => (): void => {
    if (open(command) && controller.keyReady()) {
      void decide();
    }
  };
  return [
    vscode.commands.registerCommand(ACCEPT, (id: Target) => decide(controller, id, 'accepted')),
    vscode.commands.registerCommand(REJECT, (id: Target) => decide(controller, id, 'rejected')),
    vscode.commands.registerCommand(UNDO, (id: Target) => decide(controller, id, 'pending')),
    vscode.commands.registerCommand(ACCEPT_FILE, (file: number, proposal?: string) => controller.decideOperation(file, 'accepted', proposal)),
    vscode.commands.registerCommand(REJECT_FILE, (file: number, proposal?: string) => controller.decideOperation(file, 'rejected', proposal)),
    vscode.commands.registerCommand(UNDO_FILE, (file: number, proposal?: string) => controller.decideOperation(file, 'pending', proposal)),
    vscode.commands.registerCommand(SHOW_DIFF, (file: number) => showDiff(controller, documents, file)),
    vscode.commands.registerCommand(COMMANDS.acceptAll, all('accepted', COMMANDS.acceptAll)),
    vscode.commands.registerCommand(COMMANDS.rejectAll, all('rejected', COMMANDS.rejectAll)),
    vscode.commands.registerCommand(COMMANDS.next, () => controller.revealNext(1)),
    vscode.commands.registerCommand(COMMANDS.previous, () => controller.revealNext(-1)),
    // The keys: not taken in the first moment of a review (they were meant for the one before).
    vscode.commands.registerCommand(COMMANDS.acceptHunk, here(COMMANDS.acceptHunk, () => controller.decideHere('accepted'))),
    vscode.commands.registerCommand(COMMANDS.rejectHunk, here(COMMANDS.rejectHunk, () => controller.decideHere('rejected'))),
    vscode.commands.registerCommand(COMMANDS.acceptFile, here(COMMANDS.acceptFile, () => controller.decideFileHere('accepted'))),
    vscode.commands.registerCommand(COMMANDS.rejectFile, here(COMMANDS.rejectFile, () => controller.decideFileHere('rejected'))),
    vscode.commands.registerCommand(REVEAL, (file: number, hunk?: string) => controller.revealStop({ file, hunk })),
  ];
}

/** A lens passes a hunk's id; the Changes view passes its node (a hunk or a file operation). */
type Target = string | ChangeNode;

function decide(controller: ReviewController, target: Target, decision: Decision): void {
  if (typeof target === 'string') {
    controller.decideHunk(target, decision);
  } else if (target.hunk !== undefined) {
    controller.decideHunk(target.hunk, decision);
  } else {
    controller.decideOperation(target.file, decision);
  }
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
  const name = visible(path.posix.basename(target.path));
  let left: vscode.Uri;
  let right: vscode.Uri;
  let title: string;
  // Both sides are snapshots: the review's own lenses, colours and added lines stay out of the diff.
  if (file.kind === 'create') {
    left = documents.set(target, 'empty', '');
    right = documents.set(target, 'proposed', proposedText(file));
    title = `${name} (new file, surehand proposal)`;
  } else if (file.kind === 'delete') {
    left = documents.set(source, 'current', file.text);
    right = documents.set(target, 'empty', '');
    title = `${name} (deleted, surehand proposal)`;
  } else {
    left = documents.set(source, 'current', file.text);
    right = documents.set(target, 'proposed', proposedText(file));
    title = `${name} (current ↔ surehand proposal)`;
  }
  await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
}
