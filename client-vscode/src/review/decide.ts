/**
 * Deciding a proposal: accept or reject hunks and file operations, tell when
 * everything is decided, and compute what the decisions produce. Free of
 * the `vscode` module.
 */

import type { Decision, FileReview, Hunk, Proposal } from './model';
import type { ReviewedHunk } from './protocol';

function hunkById(proposal: Proposal, id: string): Hunk | undefined {
  for (const file of proposal.files) {
    const hunk = file.hunks.find((h) => h.id === id);
    if (hunk !== undefined) {
      return hunk;
    }
  }
  return undefined;
}

/**
 * Decide one hunk (`pending` undoes a decision). A stale hunk can only be
 * rejected; a new file's hunks go with the file. Returns whether anything
 * changed.
 */
export function decideHunk(proposal: Proposal, id: string, decision: Decision): boolean {
  const hunk = hunkById(proposal, id);
  if (hunk === undefined || hunk.decision === decision || hunk.refused) {
    return false; // a hunk rejected earlier in the task stays rejected
  }
  const file = proposal.files[hunk.file];
  if (file.kind === 'create') {
    return decideOperation(proposal, file.index, decision);
  }
  if (hunk.stale && decision === 'accepted') {
    return false;
  }
  hunk.decision = decision;
  return true;
}

/** Decide a file operation (create, delete, rename); a new file's hunks follow it. */
export function decideOperation(proposal: Proposal, index: number, decision: Decision): boolean {
  const file = proposal.files[index];
  if (file === undefined || file.kind === 'edit' || file.operation === decision) {
    return false;
  }
  if (file.operationStale && decision === 'accepted') {
    return false;
  }
  file.operation = decision;
  if (file.kind === 'create') {
    for (const hunk of file.hunks) {
      hunk.decision = decision;
    }
  }
  return true;
}

/**
 * Decide everything still pending. Accepting all leaves out what can only be
 * rejected (stale hunks, a delete of a file typed in since): those are
 * rejected; and what changes how tools run, which stays pending, to be
 * accepted one by one. Returns the decisions left pending that way.
 */
export function decideAll(proposal: Proposal, decision: 'accepted' | 'rejected'): Held {
  return addHeld(proposal.files.map((file) => decidePending(file, decision)));
}

/** What "accept all" left pending: decisions in files that change how tools run, and the files. */
export interface Held {
  readonly count: number;
  /** The files' indexes. */
  readonly files: readonly number[];
}

function addHeld(held: readonly Held[]): Held {
  return { count: held.reduce((n, h) => n + h.count, 0), files: held.flatMap((h) => h.files) };
}

/**
 * Decide a whole file: its operation and every pending hunk (accepting leaves
 * out what can only be rejected, and what changes how tools run). `changed`:
 * whether anything was decided.
 */
export function decideFile(
  proposal: Proposal,
  index: number,
  decision: 'accepted' | 'rejected',
): { changed: boolean; held: Held } {
  const file = proposal.files[index];
  const none = { count: 0, files: [] };
  if (file === undefined || pendingIn(file) === 0) {
    return { changed: false, held: none };
  }
  const before = pendingIn(file);
  const held = decidePending(file, decision);
  return { changed: pendingIn(file) !== before, held };
}

/** Whether accepting in bulk leaves this to the person: it changes how tools run. */
function governed(file: FileReview, hunk?: Hunk): boolean {
  return hunk === undefined ? file.governs !== undefined : hunk.governs !== undefined;
}

/** Decide `file`'s pending operation and hunks; what is stale can only be rejected; what changes how tools run is not accepted in bulk. */
function decidePending(file: FileReview, decision: 'accepted' | 'rejected'): Held {
  let held = 0;
  if (file.kind !== 'edit' && file.operation === 'pending') {
    if (decision === 'accepted' && !file.operationStale && governed(file)) {
      held += 1;
    } else {
      file.operation = decision === 'accepted' && !file.operationStale ? 'accepted' : 'rejected';
      if (file.kind === 'create') {
        file.hunks.forEach((h) => (h.decision = file.operation));
      }
    }
  }
  if (file.kind !== 'create') {
    for (const hunk of file.hunks) {
      if (hunk.decision !== 'pending') {
        continue;
      }
      if (decision === 'accepted' && !hunk.stale && governed(file, hunk)) {
        held += 1;
      } else {
        hunk.decision = decision === 'accepted' && !hunk.stale ? 'accepted' : 'rejected';
      }
    }
  }
  return { count: held, files: held > 0 ? [file.index] : [] };
}

/** The decisions still to make in `file`: its pending file operation, the pending hunks of an existing file. */
export function pendingIn(file: FileReview): number {
  const operation = file.kind !== 'edit' && file.operation === 'pending' ? 1 : 0;
  const hunks = file.kind === 'create' ? 0 : file.hunks.filter((h) => h.decision === 'pending').length;
  return operation + hunks;
}

/** The decisions still to make in the whole proposal. */
export function pendingCount(proposal: Proposal): number {
  return proposal.files.reduce((count, file) => count + pendingIn(file), 0);
}

/** What is left to decide, by kind: hunks of existing files and file operations apart. */
export interface Pending {
  readonly hunks: number;
  readonly create: number;
  readonly delete: number;
  readonly rename: number;
}

export function pendingSummary(proposal: Proposal): Pending {
  const out = { hunks: 0, create: 0, delete: 0, rename: 0 };
  for (const file of proposal.files) {
    if (file.kind !== 'edit' && file.operation === 'pending') {
      out[file.kind] += 1;
    }
    if (file.kind !== 'create') {
      out.hunks += file.hunks.filter((h) => h.decision === 'pending').length;
    }
  }
  return out;
}

export function isSettled(proposal: Proposal): boolean {
  return pendingCount(proposal) === 0;
}

export function anyAccepted(proposal: Proposal): boolean {
  return proposal.files.some(
    (f) => (f.kind !== 'edit' && f.operation === 'accepted') || f.hunks.some((h) => h.decision === 'accepted'),
  );
}

/** Whether `hunk` goes into the file: accepted, and not made stale by the user's typing. */
export function applies(hunk: Hunk): boolean {
  return hunk.decision === 'accepted' && !hunk.stale;
}

/**
 * Count `file` out: its text moved on unseen (closed and changed on disk,
 * say), so none of it may be applied, neither its hunks nor a move.
 */
export function leaveOut(file: FileReview): void {
  for (const hunk of file.hunks) {
    hunk.stale = true;
    hunk.decision = 'rejected';
  }
  if (file.kind === 'rename') {
    file.operationStale = true;
    file.operation = 'rejected';
  }
}

/** `file.text` with the hunks that pass `keep` applied. */
export function textWith(file: FileReview, keep: (hunk: Hunk) => boolean): string {
  const hunks = file.hunks.filter(keep).sort((a, b) => a.start - b.start);
  let text = '';
  let at = 0;
  for (const hunk of hunks) {
    text += file.text.slice(at, hunk.start) + hunk.newText;
    at = hunk.end;
  }
  return text + file.text.slice(at);
}

/** The file's text once its accepted hunks are in. */
export function acceptedText(file: FileReview): string {
  return textWith(file, applies);
}

/** The file's text with every hunk that may still be accepted, for a diff view. */
export function proposedText(file: FileReview): string {
  return textWith(file, (h) => h.decision !== 'rejected' && !h.stale);
}

/**
 * What `surehand/reviewed` tells the server: every hunk and file operation
 * with its decision, `accepted` only when it is in the buffers (`applied`:
 * the edit went in; an edit VS Code refused put nothing there).
 */
export function reviewed(proposal: Proposal, applied = true): ReviewedHunk[] {
  const out: ReviewedHunk[] = [];
  for (const file of proposal.files) {
    if (file.kind !== 'edit') {
      out.push({
        uri: file.uri,
        index: -1,
        label: file.label,
        accepted: applied && file.operation === 'accepted',
        operation: file.kind,
        ...(file.operationStale ? { stale: true } : {}),
      });
    }
    const inOrder = [...file.hunks].sort((a, b) => a.index - b.index);
    for (const hunk of inOrder) {
      out.push({
        uri: file.uri,
        index: hunk.index,
        label: hunk.label,
        accepted: applied && applies(hunk),
        ...(hunk.stale ? { stale: true } : {}),
      });
    }
  }
  return out;
}

/** What a task's reviews did, told in its final message: counted over every review of the task. */
export interface Tally {
  /** Hunks and file operations now in the buffers. */
  applied: number;
  /** Rejected by the person (a repeat of one rejected earlier in the task counts once). */
  rejected: number;
  /** Left out because the person typed in their lines (or the file changed unseen). */
  stale: number;
  /** The files with something applied, by URI. */
  readonly files: Set<string>;
}

export function emptyTally(): Tally {
  return { applied: 0, rejected: 0, stale: 0, files: new Set() };
}

/** Count a finished review into `tally`; `applied`: whether its edit went into the buffers. */
export function countInto(tally: Tally, proposal: Proposal, applied: boolean): void {
  for (const file of proposal.files) {
    const items: { accepted: boolean; stale: boolean; refused: boolean }[] = [];
    if (file.kind !== 'edit') {
      items.push({ accepted: file.operation === 'accepted', stale: file.operationStale, refused: false });
    }
    if (file.kind !== 'create') {
      file.hunks.forEach((h) => items.push({ accepted: applies(h), stale: h.stale, refused: h.refused === true }));
    }
    for (const item of items) {
      if (item.accepted && applied) {
        tally.applied += 1;
        tally.files.add(file.uri);
      } else if (item.stale) {
        tally.stale += 1;
      } else if (!item.refused) {
        tally.rejected += 1;
      }
    }
  }
}

/**
 * Why the decision at `stop` (a hunk, or a file's operation) cannot be
 * accepted, for the key that tried; undefined when it can.
 */
export function whyNotAcceptable(proposal: Proposal, stop: { readonly file: number; readonly hunk?: string }): string | undefined {
  const file = proposal.files[stop.file];
  if (file === undefined) {
    return undefined;
  }
  if (stop.hunk === undefined) {
    return file.operationStale ? 'you edited the file since it was proposed, so it can only be rejected' : undefined;
  }
  const hunk = hunkById(proposal, stop.hunk);
  return hunk?.stale === true && file.kind !== 'create' ? 'you edited its lines since it was proposed, so it can only be rejected' : undefined;
}
