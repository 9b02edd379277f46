import { describe, expect, it } from 'vitest';
import {
  acceptedText,
  anyAccepted,
  decideAll,
  decideHunk,
  decideOperation,
  isSettled,
  leaveOut,
  pendingCount,
  pendingIn,
  proposedText,
  reviewed,
  whyNotAcceptable,
} from '../src/review/decide';
import { parseProposal, ProposalError, textSources } from '../src/review/model';
import type { WorkspaceEdit } from '../src/review/protocol';
import { A, aText, edit, GONE, MOVED, NEW, OLD, texts } from './proposal';
import { lines } from './ranges';

describe('parsing a proposal', () => {
  it('needs the text of every existing file it touches', () => {
    expect(textSources(edit)).toEqual([A, OLD, GONE]);
  });

  it('makes files and hunks in text order, keeping the order sent as index', () => {
    const { files } = parseProposal(edit, texts);
    expect(files.map((f) => [f.kind, f.uri, f.textUri])).toEqual([
      ['edit', A, A],
      ['create', NEW, NEW],
      ['rename', MOVED, OLD],
      ['delete', GONE, GONE],
    ]);
    const [a] = files;
    expect(a.version).toBe(3);
    expect(a.hunks.map((h) => [h.id, h.index, h.label, h.oldText, h.newText])).toEqual([
      ['0.1', 1, 'fix the off-by-one', '    return x\n', '    return x + 1\n'],
      ['0.0', 0, 'import os', '', 'import os\n'],
    ]);
    expect(files[1].hunks[0].oldText).toBe('');
    expect(files[2].hunks[0].oldText).toBe('a\n');
  });

  it('refuses overlapping edits and unreadable files', () => {
    const overlapping: WorkspaceEdit = {
      documentChanges: [{ textDocument: { uri: A, version: 1 }, edits: [{ range: lines(0, 2), newText: '' }, { range: lines(1, 3), newText: '' }] }],
    };
    expect(() => parseProposal(overlapping, texts)).toThrow(ProposalError);
    expect(() => parseProposal(edit, new Map())).toThrow(/cannot be read/);
  });

  it('reads the plain `changes` form too', () => {
    const { files } = parseProposal({ changes: { [A]: [{ range: lines(0, 1), newText: 'def f(y):\n' }] } }, texts);
    expect(files[0].version).toBeNull();
    expect(files[0].hunks[0].label).toBe('change');
  });
});

describe('deciding', () => {
  it('settles when every hunk and file operation is decided', () => {
    const proposal = parseProposal(edit, texts);
    // a.py: 2 hunks; new.py: 1 operation; moved.py: operation + 1 hunk; gone.py: 1 operation.
    expect(pendingCount(proposal)).toBe(6);
    expect(decideHunk(proposal, '0.1', 'accepted')).toBe(true);
    expect(decideHunk(proposal, '0.0', 'rejected')).toBe(true);
    expect(decideOperation(proposal, 1, 'accepted')).toBe(true);
    expect(proposal.files[1].hunks[0].decision).toBe('accepted');
    expect(isSettled(proposal)).toBe(false);
    decideAll(proposal, 'rejected');
    expect(isSettled(proposal)).toBe(true);
    expect(anyAccepted(proposal)).toBe(true);
    expect(acceptedText(proposal.files[0])).toBe(aText.replace('return x\n', 'return x + 1\n'));
    expect(acceptedText(proposal.files[1])).toBe('x = 1\n');
    expect(acceptedText(proposal.files[2])).toBe('a\nkeep\n');
  });

  it('counts the decisions left in each file', () => {
    expect(parseProposal(edit, texts).files.map(pendingIn)).toEqual([2, 1, 2, 1]);
  });

  it('leaves out a file whose text moved on: neither its hunks nor its move apply', () => {
    const proposal = parseProposal(edit, texts);
    decideAll(proposal, 'accepted');
    const moved = proposal.files[2];
    leaveOut(moved);
    expect(acceptedText(moved)).toBe('a\nkeep\n');
    expect(reviewed(proposal).filter((h) => h.uri === MOVED)).toEqual([
      { uri: MOVED, index: -1, label: 'move old', accepted: false, operation: 'rename', stale: true },
      { uri: MOVED, index: 0, label: 'move old', accepted: false, stale: true },
    ]);
  });

  it('says why a stale hunk or file operation cannot be accepted, for the key that tried', () => {
    const proposal = parseProposal(edit, texts);
    expect(whyNotAcceptable(proposal, { file: 0, hunk: '0.1' })).toBeUndefined();
    proposal.files[0].hunks[0].stale = true; // the user typed in its lines
    const hunk = proposal.files[0].hunks[0].id;
    expect(whyNotAcceptable(proposal, { file: 0, hunk })).toBe('you edited its lines since it was proposed, so it can only be rejected');
    expect(decideHunk(proposal, hunk, 'accepted')).toBe(false);
    expect(whyNotAcceptable(proposal, { file: 2 })).toBeUndefined();
    proposal.files[2].operationStale = true;
    expect(whyNotAcceptable(proposal, { file: 2 })).toBe('you edited the file since it was proposed, so it can only be rejected');
    expect(whyNotAcceptable(proposal, { file: 9 })).toBeUndefined();
  });

  it('can undo a decision while the review is open', () => {
    const proposal = parseProposal(edit, texts);
    decideHunk(proposal, '0.1', 'accepted');
    decideHunk(proposal, '0.1', 'pending');
    expect(pendingCount(proposal)).toBe(6);
  });

  it('shows every hunk not rejected in the proposed text', () => {
    const proposal = parseProposal(edit, texts);
    decideHunk(proposal, '0.1', 'rejected');
    expect(proposedText(proposal.files[0])).toBe('def f(x):\n    return x\n\n\nimport os\ndef g():\n    pass\n');
  });

  it('reports every hunk and operation to the server in the order sent', () => {
    const proposal = parseProposal(edit, texts);
    decideAll(proposal, 'accepted');
    expect(reviewed(proposal)).toEqual([
      { uri: A, index: 0, label: 'import os', accepted: true },
      { uri: A, index: 1, label: 'fix the off-by-one', accepted: true },
      { uri: NEW, index: -1, label: 'add new module', accepted: true, operation: 'create' },
      { uri: NEW, index: 0, label: 'add new module', accepted: true },
      { uri: MOVED, index: -1, label: 'move old', accepted: true, operation: 'rename' },
      { uri: MOVED, index: 0, label: 'move old', accepted: true },
      { uri: GONE, index: -1, label: 'drop gone', accepted: true, operation: 'delete' },
    ]);
  });
});
