/**
 * Following the user's typing in a file under review. Free of the `vscode`
 * module.
 *
 * Each content change (a range of the text before it and the text put
 * there, applied in order, as VS Code reports them) moves the hunks after
 * it and leaves the ones before it alone. A change that touches a hunk's
 * span makes the hunk stale: its old text is no longer what it would
 * replace, so it can only be rejected. "Touches" is strict on purpose:
 *
 * - a change ending exactly where a hunk starts touches it (it edits the
 *   first line the hunk replaces, or joins it to the line above);
 * - a change starting exactly where a hunk ends does not when the hunk ends
 *   at the start of a line (after a line break: the change is on the next
 *   line); it does when the hunk ends inside a line (the end of a last line
 *   without a final newline, a line end before its CRLF), since the change
 *   is on the hunk's own last line, and when the hunk is an insertion (an
 *   empty span), where any change at its point does.
 */

import type { FileReview } from './model';
import { lineStarts, offsetAt, type Range } from './text';

export interface TextChange {
  readonly range: Range;
  readonly text: string;
}

export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface Shifted extends Span {
  readonly touched: boolean;
}

/**
 * Where `span` is after `change` (the text's `[from, to)` replaced by
 * `inserted` characters), and whether the change touched it.
 */
export function shiftSpan(span: Span, from: number, to: number, inserted: number, endsAtLineStart = true): Shifted {
  const delta = inserted - (to - from);
  if (to < span.start) {
    return { start: span.start + delta, end: span.end + delta, touched: false };
  }
  const insertion = span.start === span.end;
  if (from > span.end || (from === span.end && !insertion && endsAtLineStart)) {
    return { ...span, touched: false };
  }
  // Touched: keep the span over what is left of it, for showing.
  const map = (at: number): number => (at <= from ? at : at >= to ? at + delta : from + inserted);
  const start = map(span.start);
  return { start, end: Math.max(start, map(span.end)), touched: true };
}

/** Apply the user's `changes` to `file`: its text follows, its hunks move or go stale. */
export function followChanges(file: FileReview, changes: readonly TextChange[]): void {
  for (const change of changes) {
    const starts = lineStarts(file.text);
    const from = offsetAt(file.text, change.range.start, 'utf-16', starts);
    const to = Math.max(from, offsetAt(file.text, change.range.end, 'utf-16', starts));
    const before = file.text;
    file.text = before.slice(0, from) + change.text + before.slice(to);
    for (const hunk of file.hunks) {
      const moved = shiftSpan(hunk, from, to, change.text.length, atLineStart(before, hunk.end));
      hunk.start = moved.start;
      hunk.end = moved.end;
      if (moved.touched && !hunk.stale) {
        hunk.stale = true;
        if (hunk.decision === 'accepted') {
          hunk.decision = 'pending'; // it cannot be applied any more: the user decides again
        }
      }
    }
    if (file.kind === 'delete') {
      file.operationStale = true;
      if (file.operation === 'accepted') {
        file.operation = 'pending';
      }
    }
  }
}

/** Whether `offset` starts a line of `text` (the start of the text, or right after a whole line break). */
export function atLineStart(text: string, offset: number): boolean {
  if (offset <= 0) {
    return true;
  }
  const previous = text[offset - 1];
  return previous === '\n' || (previous === '\r' && text[offset] !== '\n');
}
