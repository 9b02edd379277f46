/**
 * Where a hunk shows in its document: the lines it removes (drawn red), the
 * lines it adds (drawn as a green block under `anchorLine`), and the line
 * its CodeLens sits above. Free of the `vscode` module.
 */

import { lineStarts, positionAt, splitLines } from './text';
import { visible } from '../visible';

export interface HunkLayout {
  /** The line the hunk's CodeLens sits above. */
  readonly lensLine: number;
  /** The lines `[start, end)` the hunk replaces; none for an insertion. */
  readonly removed: { readonly start: number; readonly end: number } | undefined;
  /** The lines the hunk puts there. */
  readonly added: readonly string[];
  /** The added lines show below this line; -1 when they go above the first line. */
  readonly anchorLine: number;
}

export function hunkLayout(
  text: string,
  hunk: { readonly start: number; readonly end: number; readonly newText: string },
  starts: readonly number[] = lineStarts(text),
): HunkLayout {
  const first = positionAt(text, hunk.start, 'utf-16', starts);
  const last = positionAt(text, hunk.end, 'utf-16', starts);
  const added = splitLines(hunk.newText);
  if (hunk.start === hunk.end) {
    // An insertion at the start of a line goes above it; one inside a line, after it.
    const anchor = first.character === 0 ? first.line - 1 : first.line;
    return { lensLine: first.line, removed: undefined, added, anchorLine: anchor };
  }
  const end = last.character === 0 && last.line > first.line ? last.line : last.line + 1;
  return { lensLine: first.line, removed: { start: first.line, end }, added, anchorLine: end - 1 };
}

/** How a hunk reads in one line: "replace 2 lines with 3", "insert 1 line", "delete 4 lines". */
export function hunkSummary(layout: HunkLayout): string {
  const lines = (n: number): string => `${n} line${n === 1 ? '' : 's'}`;
  const removed = layout.removed ? layout.removed.end - layout.removed.start : 0;
  const added = layout.added.length;
  if (removed === 0) {
    return `insert ${lines(added)}`;
  }
  if (added === 0) {
    return `delete ${lines(removed)}`;
  }
  return `replace ${lines(removed)} with ${added}`;
}

/**
 * Added lines as a Markdown ```diff block ("+" before each line), fenced past
 * any backticks in them; each line made visible (tabs kept), so a control or
 * bidi character shows as its escape instead of moving or reordering text.
 */
export function addedBlock(lines: readonly string[]): string {
  const shown = lines.map((l) => visible(l, '\t'));
  const longest = Math.max(2, ...shown.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))));
  const fence = '`'.repeat(longest + 1);
  return `${fence}diff\n${shown.map((l) => `+${l}`).join('\n')}\n${fence}`;
}
