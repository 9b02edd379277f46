/**
 * "Surehand: Undo Last Task" and "Show Task History": the question names the
 * task and its files, the result says what was undone or, when refused,
 * which files and why; every word a task, a model or a path brought is
 * shown as what it is. The LSP client is stubbed at the two server commands.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../src/ask';
import { parseProposal } from '../src/review/model';
import type { WorkspaceEdit } from '../src/review/protocol';
import {
  acceptWhole,
  fileWords,
  historyRows,
  isUndoEdit,
  lastUndoable,
  NOTHING_TO_UNDO,
  readHistory,
  readUndoResult,
  SERVER_HISTORY,
  SERVER_UNDO_TASK,
  taskText,
  undoLastTask,
  undoMessage,
  undoQuestion,
  type UndoQuestion,
  type UndoSteps,
} from '../src/undoTask';
import { lines } from './ranges';

const ESC = '\x1b[2K\x1b[1G';
const RLO = '\u202e';
/** Whether a raw ESC or U+202E reached the text. */
const raw = (text: string): boolean => text.includes('\x1b') || text.includes(RLO);

const history = {
  tasks: [
    {
      id: 't3',
      task: 'rename util',
      when: '2026-05-09T12:03:00+00:00',
      front: 'terminal',
      files: [{ path: 'helpers.py', operation: 'rename', source: 'util.py' }],
      undone: true,
    },
    {
      id: 't2',
      task: 'fix add',
      when: '2026-05-09T12:02:00+00:00',
      front: 'editor',
      files: [
        { path: 'calc.py', operation: 'edit' },
        { path: 'notes.md', operation: 'create' },
        { path: 'old.py', operation: 'delete' },
      ],
      undone: false,
    },
    {
      id: 't1',
      task: 'first',
      when: '2026-05-09T12:01:00+00:00',
      front: 'editor',
      files: [{ path: 'calc.py', operation: 'edit' }],
      undone: false,
    },
  ],
};

/** The server and the person, stubbed: what each command returns, what the person answers. */
function stub(answers: { history?: unknown; undo?: unknown; yes?: boolean }) {
  const calls: { command: string; args: unknown[] }[] = [];
  const questions: UndoQuestion[] = [];
  const told: Message[] = [];
  const steps: UndoSteps = {
    history: () => {
      calls.push({ command: SERVER_HISTORY, args: [] });
      return Promise.resolve(answers.history);
    },
    undo: (id) => {
      calls.push({ command: SERVER_UNDO_TASK, args: [{ task: id }] });
      return Promise.resolve(answers.undo);
    },
    confirm: (question) => {
      questions.push(question);
      return Promise.resolve(answers.yes ?? false);
    },
    tell: (message) => {
      told.push(message);
      return Promise.resolve();
    },
  };
  return { steps, calls, questions, told };
}

interface Example {
  readonly params: { readonly command: string; readonly arguments: unknown[] };
  readonly result: unknown;
}

/** An example of docs/protocol/examples (the server's tests read the same files). */
function example(name: string): Example {
  const file = join(__dirname, '..', '..', 'docs', 'protocol', 'examples', `${name}.json`);
  return JSON.parse(readFileSync(file, 'utf-8')) as Example;
}

describe('the protocol examples', () => {
  it('ask about the newest task not undone, undo it by its id, and say the summary', async () => {
    const history = example('command-surehand.history');
    const undo = example('command-surehand.undoTask');
    const { steps, calls, questions, told } = stub({ history: history.result, undo: undo.result, yes: true });
    await undoLastTask(steps);
    expect(calls).toEqual([
      { command: history.params.command, args: history.params.arguments },
      { command: undo.params.command, args: undo.params.arguments },
    ]);
    expect(questions.map((q) => [q.message, q.detail.split('\n')[0]])).toEqual([
      ['Undo “Fix add, add util.”?', 'It changed calc.py, util.py (new).'],
    ]);
    expect(told).toEqual([{ severity: 'info', text: 'surehand: Undone: “Fix add, add util.”.' }]);
  });

  it('read back as they are', () => {
    const history = example('command-surehand.history');
    expect(readHistory(history.result)).toEqual((history.result as { tasks: unknown[] }).tasks);
    const undo = example('command-surehand.undoTask');
    expect(readUndoResult(undo.result)).toEqual(undo.result);
  });
});

describe('the task to undo', () => {
  it('is the newest not undone yet', () => {
    const tasks = readHistory(history);
    expect(lastUndoable(tasks)?.id).toBe('t2');
    expect(lastUndoable(tasks.map((t) => ({ ...t, undone: true })))).toBeUndefined();
  });

  it('reads a result leniently: a missing field is empty, never a crash', () => {
    expect(readHistory(undefined)).toEqual([]);
    expect(readHistory({ tasks: [{ id: 'x' }] })).toEqual([
      { id: 'x', task: '', when: '', front: '', files: [], undone: false },
    ]);
    expect(readUndoResult(null)).toEqual({ undone: null, refused: [], summary: '' });
  });
});

describe('the question before an undo', () => {
  it('names the task and each file with what the task did to it', () => {
    const question = undoQuestion(readHistory(history)[1]);
    expect(question.message).toBe('Undo “fix add”?');
    expect(question.detail.split('\n')[0]).toBe('It changed calc.py, notes.md (new), old.py (deleted).');
    expect(question.action).toBe('Undo');
    expect(fileWords({ path: 'helpers.py', operation: 'rename', source: 'util.py' })).toBe(
      'helpers.py (moved from util.py)',
    );
  });

  it('shows the task text and the paths as what they are', () => {
    const question = undoQuestion({
      id: 'x',
      task: `keep add${ESC} ${RLO}safe\nrm -rf`,
      when: '',
      front: 'editor',
      files: [{ path: `a${RLO}yp.py`, operation: 'rename', source: `b${ESC}.py` }],
      undone: false,
    });
    expect(question.message).toBe('Undo “keep add\\x1b[2K\\x1b[1G \\u202esafe\\x0arm -rf”?');
    expect(question.detail).toContain('a\\u202eyp.py (moved from b\\x1b[2K\\x1b[1G.py)');
    expect(raw(question.message + question.detail)).toBe(false);
  });

  it('cuts a long task to one short line', () => {
    const long = taskText('x'.repeat(500));
    expect([...long]).toHaveLength(120);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('what the undo tells', () => {
  it("says the server's summary when the task was undone", () => {
    const message = undoMessage(
      readUndoResult({
        undone: { id: 't2', task: 'fix add', files: ['calc.py'] },
        refused: [],
        summary: 'Undid “fix add”: calc.py.',
      }),
    );
    expect(message).toEqual({ severity: 'info', text: 'surehand: Undid “fix add”: calc.py.' });
  });

  it('warns, naming each refused file and why, when nothing was undone to keep the person’s work', () => {
    const message = undoMessage(
      readUndoResult({
        undone: null,
        refused: [
          { path: 'calc.py', why: 'you changed line(s) 2 since, where the task had written' },
          { path: `x${RLO}.py`, why: `gone${ESC}` },
        ],
        summary: 'Nothing was undone: 2 files changed since.',
      }),
    );
    expect(message.severity).toBe('warning');
    expect(message.text).toBe(
      'surehand: Nothing was undone: 2 files changed since. Not undone, to keep your changes: ' +
        'calc.py: you changed line(s) 2 since, where the task had written; x\\u202e.py: gone\\x1b[2K\\x1b[1G.',
    );
    expect(raw(message.text)).toBe(false);
  });

  it("names a refused file once when the server's summary names it already", () => {
    const why = 'you changed line(s) 2 since, where the task had written';
    const message = undoMessage(
      readUndoResult({
        undone: null,
        refused: [{ path: 'calc.py', why }],
        summary: `Nothing was undone: files changed since the task (calc.py: ${why}).`,
      }),
    );
    expect(message).toEqual({
      severity: 'warning',
      text: `surehand: Nothing was undone: files changed since the task (calc.py: ${why}).`,
    });
  });

  it('says when there was nothing to undo', () => {
    expect(undoMessage(readUndoResult({ undone: null, refused: [], summary: 'No task to undo.' }))).toEqual({
      severity: 'info',
      text: 'surehand: No task to undo.',
    });
  });

  it('words an undone task itself when the server gave no summary', () => {
    const message = undoMessage(readUndoResult({ undone: { id: 't', task: `a${RLO}b`, files: ['c.py'] }, refused: [] }));
    expect(message.text).toBe('surehand: undid “a\\u202eb” (c.py).');
  });
});

describe('Undo Last Task', () => {
  it('asks about the newest task not undone, then undoes that very task', async () => {
    const summary = 'Undid “fix add”: calc.py, notes.md, old.py.';
    const { steps, calls, questions, told } = stub({
      history,
      undo: { undone: { id: 't2', task: 'fix add', files: ['calc.py', 'notes.md', 'old.py'] }, refused: [], summary },
      yes: true,
    });
    const result = await undoLastTask(steps);
    expect(calls).toEqual([
      { command: SERVER_HISTORY, args: [] },
      { command: SERVER_UNDO_TASK, args: [{ task: 't2' }] },
    ]);
    expect(questions.map((q) => q.message)).toEqual(['Undo “fix add”?']);
    expect(told).toEqual([{ severity: 'info', text: `surehand: ${summary}` }]);
    expect(result?.undone?.id).toBe('t2');
  });

  it('undoes a task named by id only when it is the newest not undone', async () => {
    const older = stub({ history, yes: true });
    await undoLastTask(older.steps, 't1');
    expect(older.questions).toEqual([]);
    expect(older.calls.map((c) => c.command)).toEqual([SERVER_HISTORY]);
    expect(older.told).toEqual([
      { severity: 'info', text: 'surehand: tasks are undone newest first: “fix add” comes first.' },
    ]);
    const undone = stub({ history, yes: true });
    await undoLastTask(undone.steps, 't3');
    expect(undone.told).toEqual([{ severity: 'info', text: 'surehand: “rename util” is undone already.' }]);
    const newest = stub({ history, undo: { undone: null, refused: [], summary: 'x' }, yes: true });
    await undoLastTask(newest.steps, 't2');
    expect(newest.calls.at(-1)).toEqual({ command: SERVER_UNDO_TASK, args: [{ task: 't2' }] });
  });

  it('undoes nothing when the person says no', async () => {
    const { steps, calls, told } = stub({ history, yes: false });
    expect(await undoLastTask(steps)).toBeUndefined();
    expect(calls.map((c) => c.command)).toEqual([SERVER_HISTORY]);
    expect(told).toEqual([]);
  });

  it('asks nothing when no task is left to undo', async () => {
    const { steps, calls, questions, told } = stub({ history: { tasks: [] }, yes: true });
    await undoLastTask(steps);
    expect(calls.map((c) => c.command)).toEqual([SERVER_HISTORY]);
    expect(questions).toEqual([]);
    expect(told).toEqual([NOTHING_TO_UNDO]);
  });

  it('says nothing more when the server is not running (that was said)', async () => {
    const { steps, questions, told } = stub({ history: undefined, yes: true });
    await undoLastTask(steps);
    expect(questions).toEqual([]);
    expect(told).toEqual([]);
  });

  it('warns when the server refused', async () => {
    const { steps, told } = stub({
      history,
      undo: { undone: null, refused: [{ path: 'calc.py', why: 'you changed line(s) 2 since' }], summary: 'Nothing was undone.' },
      yes: true,
    });
    await undoLastTask(steps);
    expect(told).toEqual([
      {
        severity: 'warning',
        text: 'surehand: Nothing was undone. Not undone, to keep your changes: calc.py: you changed line(s) 2 since.',
      },
    ]);
  });
});

describe('Show Task History', () => {
  it('lists every task, newest first; only the newest not undone offers the undo', () => {
    const rows = historyRows(readHistory(history));
    expect(rows.map((r) => [r.label, r.undoable])).toEqual([
      ['rename util', false],
      ['fix add', true],
      ['first', false],
    ]);
    expect(rows[0].description).toMatch(/ · in the terminal · undone$/);
    expect(rows[1].description).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d · pick to undo$/);
    expect(rows[2].description).toMatch(/ · undo the newer ones first$/);
    expect(rows[1].detail).toBe('3 files: calc.py, notes.md (new), old.py (deleted)');
  });

  it('shows a task and its paths as what they are, with no icon drawn by them', () => {
    const [row] = historyRows(
      readHistory({
        tasks: [{ id: 'x', task: `$(check) done${ESC}`, when: 'soon', files: [{ path: `$(x)${RLO}.py` }], undone: false }],
      }),
    );
    expect(row.label).toBe('\\$(check) done\\x1b[2K\\x1b[1G');
    expect(row.detail).toBe('1 file: \\$(x)\\u202e.py');
    expect(row.description).toBe('soon · pick to undo');
  });
});

describe("the undo's edit", () => {
  const CALC = 'file:///w/calc.py';
  const undoEdit: WorkspaceEdit = {
    documentChanges: [
      { textDocument: { uri: CALC, version: 4 }, edits: [{ range: lines(1, 2), newText: '    return a - b\n', annotationId: 'undo-1' }] },
      { kind: 'delete', uri: 'file:///w/notes.md', annotationId: 'undo-1' },
    ],
    changeAnnotations: { 'undo-1': { label: 'undo: fix add', needsConfirmation: false } },
  };

  it("is told from a proposal's by its label, else by its annotations", () => {
    expect(isUndoEdit('surehand: undo “fix add”', undoEdit)).toBe(true);
    expect(isUndoEdit('surehand: add now adds', undoEdit)).toBe(false);
    expect(isUndoEdit(undefined, undoEdit)).toBe(true);
    const proposal: WorkspaceEdit = { changeAnnotations: { 'surehand-1': { label: 'add adds', needsConfirmation: true } } };
    expect(isUndoEdit(undefined, proposal)).toBe(false);
  });

  it('goes in whole: every hunk and file operation accepted', () => {
    const texts = new Map([
      [CALC, 'def add(a, b):\n    return a + b\n'],
      ['file:///w/notes.md', 'notes\n'],
    ]);
    const proposal = parseProposal(undoEdit, texts);
    acceptWhole(proposal);
    expect(proposal.files.map((f) => [f.kind, f.operation, f.hunks.map((h) => h.decision)])).toEqual([
      ['edit', 'accepted', ['accepted']],
      ['delete', 'accepted', []],
    ]);
  });
});
