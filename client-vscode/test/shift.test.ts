import { describe, expect, it } from 'vitest';
import { acceptedText, decideAll, decideHunk, pendingCount } from '../src/review/decide';
import { parseProposal } from '../src/review/model';
import { followChanges, shiftSpan, type TextChange } from '../src/review/shift';
import { positionAt } from '../src/review/text';
import { at, lines } from './ranges';

const A = 'file:///w/a.py';
const before = 'one\ntwo\nthree\nfour\nfive\n';

/** Replace line 1 ("two") and insert a line before line 3 ("four"). */
function proposal() {
  return parseProposal(
    {
      documentChanges: [
        {
          textDocument: { uri: A, version: 1 },
          edits: [
            { range: lines(1, 2), newText: 'TWO\n' },
            { range: lines(3), newText: 'three and a half\n' },
          ],
        },
      ],
    },
    new Map([[A, before]]),
  );
}

/** The change that puts `text` over `[from, to)` of `current`. */
function change(current: string, from: number, to: number, text: string): TextChange {
  return { range: { start: positionAt(current, from), end: positionAt(current, to) }, text };
}

describe('shiftSpan', () => {
  it('moves a span after the change and leaves one before it', () => {
    expect(shiftSpan({ start: 10, end: 20 }, 0, 2, 5)).toEqual({ start: 13, end: 23, touched: false });
    expect(shiftSpan({ start: 10, end: 20 }, 25, 30, 0)).toEqual({ start: 10, end: 20, touched: false });
  });

  it('treats its start as inside and its end as outside', () => {
    expect(shiftSpan({ start: 10, end: 20 }, 10, 10, 1).touched).toBe(true);
    expect(shiftSpan({ start: 10, end: 20 }, 8, 10, 0).touched).toBe(true);
    expect(shiftSpan({ start: 10, end: 20 }, 9, 9, 1).touched).toBe(false);
    expect(shiftSpan({ start: 10, end: 20 }, 20, 20, 3)).toEqual({ start: 10, end: 20, touched: false });
  });

  it('counts any change at an insertion point as touching it', () => {
    expect(shiftSpan({ start: 10, end: 10 }, 10, 10, 1).touched).toBe(true);
    expect(shiftSpan({ start: 10, end: 10 }, 10, 12, 0).touched).toBe(true);
    expect(shiftSpan({ start: 10, end: 10 }, 11, 12, 0).touched).toBe(false);
  });
});

describe('following the user typing', () => {
  it('moves hunks below an edit and still applies them to the right lines', () => {
    const p = proposal();
    const file = p.files[0];
    followChanges(file, [change(file.text, 0, 0, '# header\n')]);
    followChanges(file, [change(file.text, file.text.indexOf('five'), file.text.indexOf('five') + 4, 'FIVE')]);
    expect(file.hunks.every((h) => !h.stale)).toBe(true);
    decideAll(p, 'accepted');
    expect(acceptedText(file)).toBe('# header\none\nTWO\nthree\nthree and a half\nfour\nFIVE\n');
  });

  it('marks a hunk whose lines were typed in as stale: it can only be rejected', () => {
    const p = proposal();
    const file = p.files[0];
    const two = file.text.indexOf('two');
    followChanges(file, [change(file.text, two + 3, two + 3, '!')]);
    const [first, second] = file.hunks;
    expect(first.stale).toBe(true);
    expect(second.stale).toBe(false);
    expect(decideHunk(p, first.id, 'accepted')).toBe(false);
    decideAll(p, 'accepted');
    expect(first.decision).toBe('rejected');
    expect(acceptedText(file)).toBe('one\ntwo!\nthree\nthree and a half\nfour\nfive\n');
  });

  it('sends an accepted hunk back to pending when it goes stale', () => {
    const p = proposal();
    const file = p.files[0];
    decideHunk(p, file.hunks[1].id, 'accepted');
    const four = file.text.indexOf('four');
    followChanges(file, [change(file.text, four, four, 'x')]);
    expect(file.hunks[1]).toMatchObject({ stale: true, decision: 'pending' });
    expect(pendingCount(p)).toBe(2);
  });

  it('applies several changes of one event in order, with CRLF text', () => {
    const crlf = parseProposal(
      { documentChanges: [{ textDocument: { uri: A, version: 1 }, edits: [{ range: lines(2, 3), newText: 'C\r\n' }] }] },
      new Map([[A, 'a\r\nb\r\nc\r\nd\r\n']]),
    );
    const file = crlf.files[0];
    // Two edits in one event, later one first (as VS Code sends multi-cursor edits).
    followChanges(file, [
      { range: { start: at(3, 1), end: at(3, 1) }, text: '!' },
      { range: lines(0), text: 'x\r\n' },
    ]);
    expect(file.text).toBe('x\r\na\r\nb\r\nc\r\nd!\r\n');
    decideAll(crlf, 'accepted');
    expect(acceptedText(file)).toBe('x\r\na\r\nb\r\nC\r\nd!\r\n');
  });

  it('makes a file proposed for deletion keep-only once typed in', () => {
    const p = parseProposal({ documentChanges: [{ kind: 'delete', uri: A }] }, new Map([[A, 'x\n']]));
    followChanges(p.files[0], [{ range: lines(0), text: 'y' }]);
    decideAll(p, 'accepted');
    expect(p.files[0].operation).toBe('rejected');
  });

  it('makes a hunk on a last line without newline stale when typed at its end (it cannot glue)', () => {
    const text = 'def halve(x):\n    return x / 2';
    const p = parseProposal(
      { documentChanges: [{ textDocument: { uri: A, version: 1 }, edits: [{ range: { start: at(1, 0), end: at(1, 16) }, newText: '    return x // 2' }] }] },
      new Map([[A, text]]),
    );
    const file = p.files[0];
    followChanges(file, [change(file.text, file.text.length, file.text.length, '  # mine')]);
    expect(file.hunks[0].stale).toBe(true);
    expect(decideHunk(p, file.hunks[0].id, 'accepted')).toBe(false);
    decideAll(p, 'accepted');
    expect(acceptedText(file)).toBe('def halve(x):\n    return x / 2  # mine');
  });

  it('makes a hunk that ends at a line end before CRLF stale when typed there', () => {
    const text = 'a\r\nb\r\nc\r\n';
    const p = parseProposal(
      { documentChanges: [{ textDocument: { uri: A, version: 1 }, edits: [{ range: { start: at(1, 0), end: at(1, 1) }, newText: 'B' }] }] },
      new Map([[A, text]]),
    );
    const file = p.files[0];
    followChanges(file, [{ range: { start: at(1, 1), end: at(1, 1) }, text: 'x' }]);
    expect(file.hunks[0].stale).toBe(true);
    decideAll(p, 'accepted');
    expect(acceptedText(file)).toBe('a\r\nbx\r\nc\r\n');
  });

  it('makes a CRLF file\'s last line without newline stale when typed at its end', () => {
    const p = parseProposal(
      { documentChanges: [{ textDocument: { uri: A, version: 1 }, edits: [{ range: { start: at(1, 0), end: at(1, 1) }, newText: 'B' }] }] },
      new Map([[A, 'a\r\nb']]),
    );
    const file = p.files[0];
    followChanges(file, [{ range: { start: at(1, 1), end: at(1, 1) }, text: '!' }]);
    expect(file.hunks[0].stale).toBe(true);
  });

  it('leaves a hunk that ends at a line start alone when the next line is typed in', () => {
    const p = proposal();
    const file = p.files[0];
    const three = file.text.indexOf('three');
    followChanges(file, [change(file.text, three, three, '3')]);
    expect(file.hunks[0].stale).toBe(false);
  });
});
