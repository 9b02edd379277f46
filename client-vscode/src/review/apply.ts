/**
 * Applying a decided proposal: exactly the accepted hunks and file
 * operations, as one `vscode.WorkspaceEdit`, into the buffers (nothing is
 * saved: the user saves). A file whose text is no longer the one the hunks
 * were tracked against (it was closed and changed on disk, say) is left
 * alone and its hunks (and its move) count as rejected: never applied to
 * the wrong lines.
 */

import * as vscode from 'vscode';
import { acceptedText, anyAccepted, applies, leaveOut } from './decide';
import type { FileReview, Proposal } from './model';

export interface Applied {
  readonly applied: boolean;
  readonly failureReason?: string;
  /** Files left alone because their text moved on unseen. */
  readonly skipped: readonly string[];
}

export async function applyDecisions(proposal: Proposal): Promise<Applied> {
  const edit = new vscode.WorkspaceEdit();
  const skipped: string[] = [];
  for (const file of proposal.files) {
    if (!(await addFile(edit, file))) {
      skipped.push(file.uri);
      leaveOut(file);
    }
  }
  if (!anyAccepted(proposal)) {
    const reason = skipped.length > 0 ? 'The files changed during the review.' : 'The user rejected the proposal.';
    return { applied: false, failureReason: reason, skipped };
  }
  const ok = await vscode.workspace.applyEdit(edit);
  if (!ok) {
    return { applied: false, failureReason: 'VS Code could not apply the edit.', skipped };
  }
  return { applied: true, skipped };
}

/** Add `file`'s accepted part to `edit`; false when its text moved on and it was left out. */
async function addFile(edit: vscode.WorkspaceEdit, file: FileReview): Promise<boolean> {
  const target = vscode.Uri.parse(file.uri);
  const source = vscode.Uri.parse(file.textUri);
  switch (file.kind) {
    case 'create':
      if (file.operation === 'accepted') {
        edit.createFile(target, { overwrite: false, ignoreIfExists: false });
        edit.insert(target, new vscode.Position(0, 0), acceptedText(file));
      }
      return true;
    case 'delete':
      if (file.operation === 'accepted') {
        edit.deleteFile(target, { ignoreIfNotExists: true });
      }
      return true;
    case 'edit':
    case 'rename': {
      const accepted = file.hunks.filter(applies);
      if (accepted.length > 0) {
        const document = await vscode.workspace.openTextDocument(source);
        if (document.getText() !== file.text) {
          return false;
        }
        for (const hunk of accepted) {
          const range = new vscode.Range(document.positionAt(hunk.start), document.positionAt(hunk.end));
          edit.replace(source, range, hunk.newText);
        }
      }
      // Text first, then the move: VS Code carries the edited buffer to the new name.
      if (file.kind === 'rename' && file.operation === 'accepted') {
        edit.renameFile(source, target, { overwrite: false });
      }
      return true;
    }
  }
}
