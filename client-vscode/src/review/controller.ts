/**
 * The inline review of the server's proposals.
 *
 * The server's `workspace/applyEdit` lands here instead of VS Code's
 * refactor preview. The proposal's files are opened (a new file as a
 * read-only `surehand-proposal:` document), its hunks drawn in place (see
 * `view.ts`, `lenses.ts`), and the request stays open while the user
 * decides. Typing in a file under review moves its hunks or makes the ones
 * it touches stale. Once every hunk and file operation is decided, the
 * accepted ones are applied in one `WorkspaceEdit` (not saved), the server
 * gets `surehand/reviewed`, and the request is answered
 * `{applied: <anything accepted>}`. One review at a time: a second proposal
 * waits for the first.
 */

import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from 'vscode-languageclient/node';
import { applyDecisions } from './apply';
import {
  countInto,
  decideAll,
  decideFile,
  emptyTally,
  decideHunk,
  decideOperation,
  isSettled,
  pendingCount,
  pendingSummary,
  reviewed,
  textWith,
  whyNotAcceptable,
  type Held,
  type Tally,
} from './decide';
import { SCHEME, type ProposalDocuments } from './documents';
import { COMMANDS, keyLabel, KEYS } from './keys';
import { parseProposal, ProposalError, textSources, type Decision, type FileReview, type Proposal } from './model';
import type { ReviewedHunk, WorkspaceEdit } from './protocol';
import { nextStop, stopAfter, stopAt, type Cursor, type Stop } from './navigate';
import { followChanges } from './shift';
import type { Status } from '../status';
import type { TestsParams } from '../verdicts';
import { visible, visibleNotice } from '../visible';

/** Review keys pressed this soon after a review opened are not taken: they were meant for what was there before. */
export const KEY_GUARD_MS = 1000;
const REJECT = 'Reject';

/** The key of a hunk the person rejected, to know it when it comes back in the same task. */
function refusalKey(uri: string, label: string, newText: string): string {
  return JSON.stringify([uri, label, newText]);
}

/** A proposal under review, with where each of its files shows. */
export class Review {
  private finish: ((aborted: boolean) => void) | undefined;
  /** Resolves when everything is decided (false) or the review is abandoned (true). */
  readonly done = new Promise<boolean>((resolve) => (this.finish = resolve));

  constructor(
    readonly proposal: Proposal,
    /** The document each file's review shows on, by file index. */
    readonly shown: readonly vscode.Uri[],
    /** Tells the server that sent the proposal how it was decided; unset when that server is gone. */
    public notify: ((hunks: ReviewedHunk[]) => void) | undefined,
    /** The tests' verdict on the proposal, when the server sent one with it. */
    readonly tests?: TestsParams,
  ) {}

  filesShownOn(uri: vscode.Uri): FileReview[] {
    const key = uri.toString();
    return this.proposal.files.filter((f) => this.shown[f.index].toString() === key);
  }

  end(aborted: boolean): void {
    this.finish?.(aborted);
    this.finish = undefined;
  }
}

export class ReviewController implements vscode.Disposable {
  private current: Review | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<Review | undefined>();
  /** Fires on every change of the review (a decision, typing, its start and end). */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** Sends `surehand/reviewed` to the server (set while a client runs); a review keeps the one it started with. */
  notify: ((hunks: ReviewedHunk[]) => void) | undefined;
  private serial = 0;
  private openedAt = 0;
  /** The hunks the person rejected (or could only reject) in the current task: they never come back in it. */
  private refused = new Set<string>();
  private tally: Tally = emptyTally();
  /** The tests' verdict the server sent right before its proposal, for that proposal's review. */
  private nextTests: TestsParams | undefined;

  constructor(
    private readonly documents: ProposalDocuments,
    private readonly status: Status,
    private readonly output: vscode.OutputChannel,
  ) {
    this.subscriptions = [vscode.workspace.onDidChangeTextDocument((e) => this.follow(e))];
  }

  get review(): Review | undefined {
    return this.current;
  }

  /** A new task starts: what the last one rejected may be proposed again, and its count starts at zero. */
  newTask(): void {
    this.refused = new Set();
    this.tally = emptyTally();
    this.nextTests = undefined;
  }

  /** The tests' verdict on the proposal that comes next (`surehand/tests`, `on: "proposal"`). */
  proposalTests(tests: TestsParams): void {
    this.nextTests = tests;
  }

  /** What the current task's reviews did so far (every round of it). */
  taskTally(): Tally {
    return this.tally;
  }

  /** Whether a review key may act now: not in the first moment of a review (keys meant for what was there before). */
  keyReady(): boolean {
    if (this.current !== undefined && Date.now() - this.openedAt < KEY_GUARD_MS) {
      vscode.window.setStatusBarMessage('surehand: a review just opened; look at it, then press the key again', 4000);
      return false;
    }
    return true;
  }

  /** The `workspace/applyEdit` handler. */
  handleApplyEdit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const next = this.queue.then(() => this.run(params.edit as WorkspaceEdit));
    this.queue = next.catch(() => undefined);
    return next;
  }

  decideHunk(id: string, decision: Decision): void {
    const review = this.current;
    if (review !== undefined && decideHunk(review.proposal, id, decision)) {
      this.update(review);
    }
  }

  /** Decide a file operation; `proposal`: the id of the proposal the lens was drawn for (an older one's does nothing). */
  decideOperation(file: number, decision: Decision, proposal?: string): void {
    const review = this.current;
    if (review !== undefined && (proposal === undefined || proposal === review.proposal.id) && decideOperation(review.proposal, file, decision)) {
      this.update(review);
    }
  }

  decideAll(decision: 'accepted' | 'rejected'): boolean {
    const review = this.current;
    if (review === undefined) {
      return false;
    }
    const held = decideAll(review.proposal, decision);
    this.update(review);
    this.sayHeld(review, held);
    return true;
  }

  /** Tell the person what "accept all" left for them to accept one by one. */
  private sayHeld(review: Review, held: Held): void {
    if (held.count === 0) {
      return;
    }
    const names = held.files.map((i) => {
      const file = review.proposal.files[i];
      return `${visible(decodeURIComponent(file.uri.split('/').pop() ?? file.uri))} (${visible(file.governs ?? file.hunks.find((h) => h.governs)?.governs ?? '')})`;
    });
    const text =
      `surehand: not accepted in bulk: ${held.count === 1 ? 'a change' : `${held.count} changes`} to files that change how tools run: ` +
      `${names.join(', ')}. Accept or reject them one by one.`;
    void vscode.window.showWarningMessage(visibleNotice(text));
  }

  /** End the review without applying anything (the extension stopped the server). */
  abort(): void {
    this.current?.end(true);
  }

  /** The server that sent the proposal is gone: the review goes on, and nobody is told its decisions. */
  orphan(): void {
    if (this.current !== undefined) {
      this.current.notify = undefined;
    }
  }

  /** Decide the pending hunk (or file operation) at the cursor, then go to the next one. */
  async decideHere(decision: 'accepted' | 'rejected'): Promise<void> {
    const review = this.current;
    const cursor = this.cursor();
    const stop = review && cursor ? stopAt(review.proposal, cursor) : undefined;
    if (review === undefined || cursor === undefined || stop === undefined) {
      await this.revealNext(1);
      return;
    }
    const why = decision === 'accepted' ? whyNotAcceptable(review.proposal, stop) : undefined;
    if (why !== undefined) {
      void this.cannotAccept(review, stop, why);
      return;
    }
    const changed =
      stop.hunk === undefined
        ? decideOperation(review.proposal, stop.file, decision)
        : decideHunk(review.proposal, stop.hunk, decision);
    if (changed) {
      this.update(review);
      await this.revealStop(stopAfter(review.proposal, cursor));
    }
  }

  /** Say why the decision at `stop` cannot be accepted, with the button that rejects it. */
  private async cannotAccept(review: Review, stop: Stop, why: string): Promise<void> {
    const mac = process.platform === 'darwin';
    const key = keyLabel(mac ? KEYS[COMMANDS.rejectHunk].mac : KEYS[COMMANDS.rejectHunk].key, mac);
    const choice = await vscode.window.showWarningMessage(`surehand: this change cannot be accepted: ${why} (${key}).`, REJECT);
    if (choice !== REJECT || review !== this.current) {
      return;
    }
    const changed =
      stop.hunk === undefined ? decideOperation(review.proposal, stop.file, 'rejected') : decideHunk(review.proposal, stop.hunk, 'rejected');
    if (changed) {
      this.update(review);
    }
  }

  /** Decide everything pending in the file at the cursor, then go to the next file. */
  async decideFileHere(decision: 'accepted' | 'rejected'): Promise<void> {
    const review = this.current;
    const cursor = this.cursor();
    if (review === undefined || cursor === undefined) {
      return;
    }
    const results = cursor.files.map((f) => decideFile(review.proposal, f, decision));
    this.sayHeld(review, { count: results.reduce((n, r) => n + r.held.count, 0), files: results.flatMap((r) => r.held.files) });
    if (results.some((r) => r.changed)) {
      this.update(review);
      await this.revealStop(nextStop(review.proposal, cursor, 1));
    }
  }

  /** Put the next (1) or previous (-1) pending decision in view, opening its file. */
  async revealNext(direction: 1 | -1 = 1): Promise<void> {
    const review = this.current;
    if (review !== undefined) {
      await this.revealStop(nextStop(review.proposal, this.cursor(), direction));
    }
  }

  /** Open `stop`'s file with the cursor on its first line. */
  async revealStop(stop: Pick<Stop, 'file' | 'hunk'> | undefined): Promise<void> {
    const review = this.current;
    const file = stop === undefined ? undefined : review?.proposal.files[stop.file];
    if (review === undefined || file === undefined || review !== this.current) {
      return;
    }
    await this.reveal(review, file, false, stop?.hunk);
  }

  /** The active editor's cursor, when it shows a file under review. */
  private cursor(): Cursor | undefined {
    const editor = vscode.window.activeTextEditor;
    const review = this.current;
    if (editor === undefined || review === undefined) {
      return undefined;
    }
    return { files: review.filesShownOn(editor.document.uri).map((f) => f.index), line: editor.selection.active.line };
  }

  dispose(): void {
    this.abort();
    this.subscriptions.forEach((s) => {
      s.dispose();
    });
    this.changed.dispose();
  }

  private async run(edit: WorkspaceEdit): Promise<ApplyWorkspaceEditResult> {
    const tests = this.nextTests; // sent right before this proposal: it is this one's, shown or not
    this.nextTests = undefined;
    const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
    const stale = staleVersion(edit, open);
    if (stale !== undefined) {
      return { applied: false, failureReason: `${stale} changed since the proposal was made.` };
    }
    let proposal: Proposal;
    try {
      this.serial += 1;
      proposal = parseProposal(edit, await readTexts(textSources(edit)), {
        id: `r${this.serial}:`,
        refused: (uri, label, newText) => this.refused.has(refusalKey(uri, label, newText)),
      });
    } catch (error) {
      const reason = error instanceof ProposalError ? error.message : String(error);
      this.output.appendLine(`Review: cannot show the proposal: ${reason}`);
      return { applied: false, failureReason: reason };
    }
    if (proposal.files.length === 0) {
      return { applied: true };
    }
    const shown = proposal.files.map((f) => {
      const target = vscode.Uri.parse(f.uri);
      return f.kind === 'create' ? this.documents.set(target, 'new', newText(f)) : vscode.Uri.parse(f.textUri);
    });
    const review = new Review(proposal, shown, this.notify, tests);
    const again = proposal.files.flatMap((f) => f.hunks).filter((h) => h.refused).length;
    if (again > 0) {
      this.output.appendLine(`Review: ${again} hunks the person rejected earlier in this task came back; they stay rejected.`);
    }
    this.current = review;
    this.openedAt = Date.now();
    this.update(review);
    this.output.appendLine(`Review: ${pendingCount(proposal)} decisions in ${proposal.files.length} files.`);
    if (!isSettled(proposal)) {
      for (const file of [...proposal.files].reverse()) {
        await this.reveal(review, file, file.index !== 0);
      }
    }
    const aborted = await review.done;
    return this.finish(review, aborted);
  }

  private async finish(review: Review, aborted: boolean): Promise<ApplyWorkspaceEditResult> {
    this.current = undefined;
    this.changed.fire(undefined);
    this.status.reviewing(undefined);
    await closeTabs();
    this.documents.clear();
    if (aborted) {
      return { applied: false, failureReason: 'The review was abandoned.' };
    }
    const result = await applyDecisions(review.proposal);
    for (const uri of result.skipped) {
      this.output.appendLine(`Review: ${uri} changed outside the review; its hunks were not applied.`);
      const message = `surehand: ${visible(decodeURIComponent(uri))} changed outside the review; its accepted hunks were not applied.`;
      void vscode.window.showWarningMessage(visibleNotice(message));
    }
    // A deleted file's buffer would outlive the file while a tab shows it.
    const deleted = review.proposal.files.filter((f) => f.kind === 'delete' && f.operation === 'accepted');
    if (result.applied && deleted.length > 0) {
      await closeTabs(deleted.map((f) => vscode.Uri.parse(f.uri)));
    }
    const hunks = reviewed(review.proposal, result.applied);
    this.output.appendLine(`Review: ${hunks.filter((h) => h.accepted).length} of ${hunks.length} in the buffers.`);
    countInto(this.tally, review.proposal, result.applied);
    for (const file of review.proposal.files) {
      for (const hunk of file.hunks) {
        if (!(result.applied && hunk.decision === 'accepted' && !hunk.stale)) {
          this.refused.add(refusalKey(file.uri, hunk.label, hunk.newText));
        }
      }
    }
    review.notify?.(hunks);
    return result.failureReason === undefined
      ? { applied: result.applied }
      : { applied: result.applied, failureReason: result.failureReason };
  }

  private update(review: Review): void {
    if (review !== this.current) {
      return;
    }
    this.changed.fire(review);
    this.status.reviewing(pendingSummary(review.proposal));
    if (isSettled(review.proposal)) {
      review.end(false);
    }
  }

  private follow(event: vscode.TextDocumentChangeEvent): void {
    const review = this.current;
    if (review === undefined || event.contentChanges.length === 0) {
      return;
    }
    const files = review.filesShownOn(event.document.uri).filter((f) => f.kind !== 'create');
    if (files.length === 0) {
      return;
    }
    const changes = event.contentChanges.map((c) => ({
      range: { start: c.range.start, end: c.range.end },
      text: c.text,
    }));
    files.forEach((file) => followChanges(file, changes));
    this.update(review);
  }

  /** Show `file` with the cursor at `hunkId` (else its first pending hunk; a file operation: the top). */
  private async reveal(review: Review, file: FileReview, preserveFocus: boolean, hunkId?: string): Promise<void> {
    try {
      const document = await vscode.workspace.openTextDocument(review.shown[file.index]);
      const editor = await vscode.window.showTextDocument(document, { preview: false, preserveFocus });
      const pendingOperation = file.kind !== 'edit' && file.operation === 'pending' && hunkId === undefined;
      const first = pendingOperation
        ? undefined
        : (file.hunks.find((h) => h.id === hunkId) ?? file.hunks.find((h) => h.decision === 'pending') ?? file.hunks[0]);
      const position = first === undefined ? new vscode.Position(0, 0) : document.positionAt(first.start);
      if (!preserveFocus) {
        editor.selection = new vscode.Selection(position, position);
      }
      editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    } catch (error) {
      this.output.appendLine(`Review: cannot open ${file.uri}: ${String(error)}`);
    }
  }
}

/** The first versioned document that is open at another version than the edit's, if any. */
export function staleVersion(edit: WorkspaceEdit, open: ReadonlyMap<string, vscode.TextDocument>): string | undefined {
  for (const change of edit.documentChanges ?? []) {
    if (!('textDocument' in change)) {
      continue;
    }
    const { uri, version } = change.textDocument;
    const document = open.get(vscode.Uri.parse(uri).toString());
    if (version !== null && document !== undefined && document.version !== version) {
      return uri;
    }
  }
  return undefined;
}

/** The current text of each URI that exists (open buffer, else the file). */
export async function readTexts(uris: readonly string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const uri of uris) {
    try {
      texts.set(uri, (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri))).getText());
    } catch {
      // missing: parseProposal says which file it could not read
    }
  }
  return texts;
}

/** A new file's content: all its hunks. */
function newText(file: FileReview): string {
  return textWith(file, () => true);
}

/** Close the tabs showing a `surehand-proposal:` document (or diffing one), or one of `uris`. */
export async function closeTabs(uris: readonly vscode.Uri[] = []): Promise<void> {
  const ours = (uri: vscode.Uri): boolean =>
    uri.scheme === SCHEME || uris.some((u) => u.toString() === uri.toString());
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
  const closing = tabs.filter((tab) => {
    const input = tab.input;
    if (input instanceof vscode.TabInputText) {
      return ours(input.uri);
    }
    if (input instanceof vscode.TabInputTextDiff) {
      return ours(input.modified) || ours(input.original);
    }
    return false;
  });
  if (closing.length > 0) {
    await vscode.window.tabGroups.close(closing, true);
  }
}
