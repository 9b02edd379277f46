/** A proposal with one file of each kind, as the server sends it, and the texts it is against. */

import type { WorkspaceEdit } from '../src/review/protocol';
import { lines } from './ranges';

export const A = 'file:///w/a.py';
export const NEW = 'file:///w/new.py';
export const OLD = 'file:///w/old.py';
export const MOVED = 'file:///w/moved.py';
export const GONE = 'file:///w/gone.py';

export const aText = 'def f(x):\n    return x\n\n\ndef g():\n    pass\n';

/** Two hunks in a.py, sent out of order: replace line 1, insert before line 4. */
export const edit: WorkspaceEdit = {
  documentChanges: [
    {
      textDocument: { uri: A, version: 3 },
      edits: [
        { range: lines(4, 4), newText: 'import os\n', annotationId: 'surehand-2' },
        { range: lines(1, 2), newText: '    return x + 1\n', annotationId: 'surehand-1' },
      ],
    },
    { kind: 'create', uri: NEW, annotationId: 'surehand-3' },
    { textDocument: { uri: NEW, version: null }, edits: [{ range: lines(0, 0), newText: 'x = 1\n', annotationId: 'surehand-3' }] },
    { kind: 'rename', oldUri: OLD, newUri: MOVED, annotationId: 'surehand-4' },
    { textDocument: { uri: MOVED, version: null }, edits: [{ range: lines(0, 1), newText: 'b\n', annotationId: 'surehand-4' }] },
    { kind: 'delete', uri: GONE, annotationId: 'surehand-5' },
  ],
  changeAnnotations: {
    'surehand-1': { label: 'fix the off-by-one', needsConfirmation: true },
    'surehand-2': { label: 'import os', needsConfirmation: true },
    'surehand-3': { label: 'add new module', needsConfirmation: true },
    'surehand-4': { label: 'move old', needsConfirmation: true },
    'surehand-5': { label: 'drop gone', needsConfirmation: true },
  },
};

export const texts = new Map([
  [A, aText],
  [OLD, 'a\nkeep\n'],
  [GONE, 'bye\n'],
]);

