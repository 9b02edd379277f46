import { describe, expect, it } from 'vitest';
import { childNodes, fileNodes } from '../src/review/changes';
import { decideFile, decideHunk, decideOperation, pendingSummary } from '../src/review/decide';
import { parseProposal } from '../src/review/model';
import { nextStop, pendingStops, stopAfter, stopAt } from '../src/review/navigate';
import { edit, texts } from './proposal';

// a.py (file 0): hunk 0.1 on line 1, hunk 0.0 (insertion) on line 4; new.py (1): operation;
// moved.py (2): operation and hunk 2.0, both on line 0; gone.py (3): operation.
const proposal = () => parseProposal(edit, texts);

describe('keyboard review: where the keys go', () => {
  it('lists the decisions in review order: each file top down, its operation first', () => {
    expect(pendingStops(proposal()).map((s) => [s.file, s.hunk ?? 'op', s.line])).toEqual([
      [0, '0.1', 1],
      [0, '0.0', 4],
      [1, 'op', 0],
      [2, 'op', 0],
      [2, '2.0', 0],
      [3, 'op', 0],
    ]);
  });

  it('acts on the hunk under the cursor, else the next one below it, else the first', () => {
    const p = proposal();
    expect(stopAt(p, { files: [0], line: 1 })?.hunk).toBe('0.1');
    expect(stopAt(p, { files: [0], line: 2 })?.hunk).toBe('0.0');
    expect(stopAt(p, { files: [0], line: 5 })?.hunk).toBe('0.1');
    // A hunk on the line of a rename is decided before the rename.
    expect(stopAt(p, { files: [2], line: 0 })?.hunk).toBe('2.0');
    decideHunk(p, '2.0', 'accepted');
    expect(stopAt(p, { files: [2], line: 0 })).toEqual({ file: 2, line: 0, lastLine: 0 });
    expect(stopAt(p, { files: [9], line: 0 })).toBeUndefined();
  });

  it('goes to the next and previous decision across files, wrapping around', () => {
    const p = proposal();
    expect(nextStop(p, { files: [0], line: 1 }, 1)?.hunk).toBe('0.0');
    expect(nextStop(p, { files: [0], line: 4 }, 1)?.file).toBe(1);
    expect(nextStop(p, { files: [3], line: 0 }, 1)?.hunk).toBe('0.1');
    expect(nextStop(p, { files: [0], line: 1 }, -1)?.file).toBe(3);
    expect(nextStop(p, { files: [1], line: 0 }, -1)?.hunk).toBe('0.0');
    expect(nextStop(p, undefined, 1)?.hunk).toBe('0.1');
  });

  it('after a decision, stays in the file while it has some left', () => {
    const p = proposal();
    decideHunk(p, '0.1', 'accepted');
    expect(stopAfter(p, { files: [0], line: 1 })?.hunk).toBe('0.0');
    decideHunk(p, '0.0', 'rejected');
    expect(stopAfter(p, { files: [0], line: 4 })?.file).toBe(1);
    decideHunk(p, '2.0', 'accepted');
    expect(stopAfter(p, { files: [2], line: 0 })).toEqual({ file: 2, line: 0, lastLine: 0 });
  });

  it('decides a whole file, operation and hunks', () => {
    const p = proposal();
    expect(decideFile(p, 2, 'accepted').changed).toBe(true);
    expect(p.files[2].operation).toBe('accepted');
    expect(p.files[2].hunks[0].decision).toBe('accepted');
    expect(decideFile(p, 2, 'rejected').changed).toBe(false); // nothing left to decide
    p.files[0].hunks[0].stale = true;
    decideFile(p, 0, 'accepted');
    expect(p.files[0].hunks.map((h) => h.decision)).toEqual(['rejected', 'accepted']);
  });

  it('counts hunks apart from file operations', () => {
    const p = proposal();
    expect(pendingSummary(p)).toEqual({ hunks: 3, create: 1, delete: 1, rename: 1 });
    decideOperation(p, 1, 'accepted');
    expect(pendingSummary(p)).toEqual({ hunks: 3, create: 0, delete: 1, rename: 1 });
  });
});

describe('the Changes view', () => {
  it('lists files with what is left, and their operations and hunks with their state', () => {
    const p = proposal();
    decideHunk(p, '0.1', 'accepted');
    expect(fileNodes(p, 'file:///w').map((n) => [n.label, n.description, n.state])).toEqual([
      ['a.py', '1 to decide', 'pending'],
      ['new.py', '1 to decide', 'pending'],
      ['old.py', '2 to decide', 'pending'],
      ['gone.py', '1 to decide', 'pending'],
    ]);
    expect(childNodes(p.files[0]).map((n) => [n.kind, n.label, n.description])).toEqual([
      ['hunk', 'fix the off-by-one', 'accepted · line 2'],
      ['hunk', 'import os', 'line 5: insert 1 line'],
    ]);
    expect(childNodes(p.files[2], 'file:///w').map((n) => [n.kind, n.label, n.state])).toEqual([
      ['operation', 'rename to moved.py', 'pending'],
      ['hunk', 'move old', 'pending'],
    ]);
    expect(childNodes(p.files[1]).map((n) => n.label)).toEqual(['new file (1 line)']);
    decideHunk(p, '0.0', 'rejected');
    expect(fileNodes(p)[0]).toMatchObject({ state: 'partly', description: 'partly accepted' });
  });
});
