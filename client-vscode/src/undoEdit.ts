/**
 * The server's `workspace/applyEdit` of an undo: the open files of the task
 * the person just agreed to undo. It is not a proposal to review (the
 * person said yes in the question): it goes into the buffers whole, unsaved,
 * by the same application as an accepted proposal (`review/apply.ts`), or
 * not at all when a buffer moved on since the server read it.
 */

import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from 'vscode-languageclient/node';
import { applyDecisions } from './review/apply';
import { closeTabs, readTexts, staleVersion } from './review/controller';
import { parseProposal, ProposalError, textSources } from './review/model';
import type { WorkspaceEdit } from './review/protocol';
import { acceptWhole, isUndoEdit } from './undoTask';

export class UndoEdits {
  /** This window's undo requests waiting for the server's answer. */
  private waiting = 0;

  constructor(private readonly output: vscode.OutputChannel) {}

  /** Run `request` (the server's `surehand.undoTask`): the undo's edits that come meanwhile are this window's. */
  async during<T>(request: () => Promise<T>): Promise<T> {
    this.waiting += 1;
    try {
      return await request();
    } finally {
      this.waiting -= 1;
    }
  }

  /** Whether `params` is the edit of an undo this window asked for (else it is a proposal to review). */
  claims(params: ApplyWorkspaceEditParams): boolean {
    return this.waiting > 0 && isUndoEdit(params.label, params.edit);
  }

  async apply(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const edit = params.edit as WorkspaceEdit;
    const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
    const stale = staleVersion(edit, open);
    if (stale !== undefined) {
      return { applied: false, failureReason: `${stale} changed since the undo was planned.` };
    }
    try {
      const proposal = parseProposal(edit, await readTexts(textSources(edit)), { id: 'undo:' });
      acceptWhole(proposal);
      const result = await applyDecisions(proposal);
      this.output.appendLine(`Undo: ${result.applied ? 'applied' : `not applied (${result.failureReason ?? ''})`}.`);
      const deleted = proposal.files.filter((f) => f.kind === 'delete').map((f) => vscode.Uri.parse(f.uri));
      if (result.applied && deleted.length > 0) {
        await closeTabs(deleted); // a deleted file's buffer would outlive the file while a tab shows it
      }
      return result.failureReason === undefined
        ? { applied: result.applied }
        : { applied: result.applied, failureReason: result.failureReason };
    } catch (error) {
      const reason = error instanceof ProposalError ? error.message : String(error);
      this.output.appendLine(`Undo: cannot apply the edit: ${reason}`);
      return { applied: false, failureReason: reason };
    }
  }
}
