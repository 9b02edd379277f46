/**
 * Moving through a review by keyboard: the decisions in order (each file's
 * operation at its top, then its hunks from top to bottom, files in the
 * proposal's order), the one under the cursor, the next and previous one.
 * Free of the `vscode` module.
 */

import { hunkLayout } from './layout';
import type { Proposal } from './model';
import { lineStarts } from './text';

/** One decision to make: a file's operation (no `hunk`) or one hunk, and the lines it covers. */
export interface Stop {
  readonly file: number;
  readonly hunk?: string;
  readonly line: number;
  readonly lastLine: number;
}

/** Every pending decision, in review order. */
export function pendingStops(proposal: Proposal): Stop[] {
  const out: Stop[] = [];
  for (const file of proposal.files) {
    if (file.kind !== 'edit' && file.operation === 'pending') {
      out.push({ file: file.index, line: 0, lastLine: 0 });
    }
    if (file.kind === 'create') {
      continue; // its hunks go with the file
    }
    const starts = lineStarts(file.text);
    const hunks = file.hunks.filter((h) => h.decision === 'pending').sort((a, b) => a.start - b.start);
    for (const hunk of hunks) {
      const layout = hunkLayout(file.text, hunk, starts);
      const last = Math.max(layout.lensLine, layout.removed ? layout.removed.end - 1 : layout.anchorLine);
      out.push({ file: file.index, hunk: hunk.id, line: layout.lensLine, lastLine: last });
    }
  }
  return out;
}

/** Where the cursor is: a line in the document that shows `files` (their indexes). */
export interface Cursor {
  readonly files: readonly number[];
  readonly line: number;
}

/**
 * The pending decision the keys act on: the one whose lines hold the
 * cursor, else the next one below it in the same document, else the first
 * one in it; undefined when the document has none.
 */
export function stopAt(proposal: Proposal, cursor: Cursor): Stop | undefined {
  const here = pendingStops(proposal).filter((s) => cursor.files.includes(s.file));
  // A hunk under the cursor wins over a file operation on the same line.
  const under = here.filter((s) => s.line <= cursor.line && cursor.line <= s.lastLine);
  return under.find((s) => s.hunk !== undefined) ?? under[0] ?? here.find((s) => s.line > cursor.line) ?? here[0];
}

/** The pending decision after (`1`) or before (`-1`) the cursor, wrapping around the proposal. */
export function nextStop(proposal: Proposal, cursor: Cursor | undefined, direction: 1 | -1): Stop | undefined {
  const stops = pendingStops(proposal);
  if (stops.length === 0) {
    return undefined;
  }
  if (cursor === undefined || cursor.files.length === 0) {
    return direction === 1 ? stops[0] : stops[stops.length - 1];
  }
  const file = Math.min(...cursor.files);
  const order = (s: Stop): number => (cursor.files.includes(s.file) ? 0 : s.file < file ? -1 : 1);
  const after = (s: Stop): boolean => order(s) > 0 || (order(s) === 0 && s.line > cursor.line);
  const before = (s: Stop): boolean => order(s) < 0 || (order(s) === 0 && s.line < cursor.line);
  if (direction === 1) {
    return stops.find(after) ?? stops[0];
  }
  return [...stops].reverse().find(before) ?? stops[stops.length - 1];
}

/** Where to go once the decision at the cursor is made: the next one in this document below it, else the next anywhere. */
export function stopAfter(proposal: Proposal, cursor: Cursor): Stop | undefined {
  const here = pendingStops(proposal).filter((s) => cursor.files.includes(s.file));
  return here.find((s) => s.lastLine >= cursor.line) ?? nextStop(proposal, cursor, 1);
}
