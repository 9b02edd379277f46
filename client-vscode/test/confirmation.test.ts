/**
 * The confirmation (DESIGN.md): what a person reads is what will happen,
 * only the person answers, a "no" is final for the task, every report is
 * true, and files that change how tools run are flagged and never accepted
 * in bulk.
 */

import { describe, expect, it } from 'vitest';
import { approvalStep, questionDialog } from '../src/approval';
import { resultMessage } from '../src/ask';
import { childNodes, fileNodes } from '../src/review/changes';
import {
  countInto,
  decideAll,
  decideFile,
  decideHunk,
  decideOperation,
  emptyTally,
  isSettled,
  pendingCount,
  reviewed,
} from '../src/review/decide';
import { addedBlock, hunkLayout } from '../src/review/layout';
import { GOVERNS_MARK, lensRows } from '../src/review/lensText';
import { parseProposal } from '../src/review/model';
import type { WorkspaceEdit } from '../src/review/protocol';
import { statusText } from '../src/statusText';
import { lines } from './ranges';

const ESC = '\x1b[2K\x1b[1G';
const RLO = '\u202e';
const CALC = 'file:///w/calc.py';
const SETTINGS = 'file:///w/.vscode/settings.json';
const TOML = 'file:///w/.surehand.toml';

/** A spoofing label and added line, an edit of a governing file and a new governing file. */
const edit: WorkspaceEdit = {
  documentChanges: [
    {
      textDocument: { uri: CALC, version: 1 },
      edits: [
        { range: lines(1, 2), newText: `    __import__('os').system('id')  # ${ESC}+    return a + b\n`, annotationId: 'surehand-1' },
        { range: lines(4, 5), newText: `    return x // 2  # ${RLO}evil\n`, annotationId: 'surehand-2' },
      ],
    },
    {
      textDocument: { uri: SETTINGS, version: 1 },
      edits: [{ range: lines(0, 1), newText: '{"python.defaultInterpreterPath": "/tmp/x"}\n', annotationId: 'surehand-governs-3' }],
    },
    { kind: 'create', uri: TOML, annotationId: 'surehand-governs-4' },
    { textDocument: { uri: TOML, version: null }, edits: [{ range: lines(0, 0), newText: 'allow = ["curl"]\n', annotationId: 'surehand-governs-4' }] },
  ],
  changeAnnotations: {
    'surehand-1': { label: `fix add${ESC}looks fine`, needsConfirmation: true, description: 'proposed by surehand' },
    'surehand-2': { label: `halve ${RLO}floors`, needsConfirmation: true, description: 'proposed by surehand' },
    'surehand-governs-3': { label: 'editor settings', needsConfirmation: true, description: 'changes how tools run: VS Code workspace settings' },
    'surehand-governs-4': { label: 'allow curl', needsConfirmation: true, description: 'changes how tools run: surehand project settings' },
  },
};
const texts = new Map([
  [CALC, 'def add(a, b):\n    return a - b\n\n\ndef halve(x):\n    return x / 2\n'],
  [SETTINGS, '{}\n'],
]);

describe('model-chosen text is shown as what it is', () => {
  it('in the CodeLens titles and tooltips', () => {
    const proposal = parseProposal(edit, texts);
    const rows = [...lensRows([proposal.files[0]], false).values()].flat();
    const shown = rows.map((l) => `${l.title}\n${l.tooltip ?? ''}`).join('\n');
    expect(shown.includes(ESC[0]) || shown.includes(RLO)).toBe(false);
    expect(shown).toContain('fix add\\x1b[2K\\x1b[1Glooks fine');
    expect(shown).toContain('halve \\u202efloors');
  });

  it('in the added lines, with tabs kept', () => {
    const proposal = parseProposal(edit, texts);
    const hunk = proposal.files[0].hunks[0];
    const block = addedBlock(hunkLayout(proposal.files[0].text, hunk).added);
    expect(block).toContain("+    __import__('os').system('id')  # \\x1b[2K\\x1b[1G+    return a + b");
    expect(block).not.toContain('\x1b');
    expect(addedBlock(['\tx = 1'])).toContain('+\tx = 1');
  });

  it('in the Changes view', () => {
    const proposal = parseProposal(edit, texts);
    const nodes = [...fileNodes(proposal), ...proposal.files.flatMap((f) => childNodes(f))];
    const all = nodes.map((n) => `${n.label} ${n.description}`).join('\n');
    expect(all).toContain('halve \\u202efloors');
    expect(all.includes(ESC[0]) || all.includes(RLO)).toBe(false);
    const withPath = fileNodes(parseProposal({ changes: { 'file:///w/a%1B%5B2Kb.py': [] } }, new Map([['file:///w/a%1B%5B2Kb.py', '']])), 'file:///w');
    expect(withPath[0].label).toBe('a\\x1b[2Kb.py');
  });

  it('in the approval question, the status and the outcome', () => {
    const question = `surehand wants to run \`touch /tmp/p ${ESC}pytest -q\` (not on the allowlist).`;
    expect(approvalStep(question)).toBe('waiting for your approval: touch /tmp/p \\x1b[2K\\x1b[1Gpytest -q');
    const dialog = questionDialog(question, ['Allow once', 'Always allow this command', 'Deny']);
    expect(dialog.detail).toContain('touch /tmp/p \\x1b[2K\\x1b[1Gpytest -q');
    expect(dialog.detail).not.toContain('\x1b');
    expect(statusText({ server: 'running', working: `Running ${RLO}$(check) x` }).text).toBe(
      '$(loading~spin) surehand: Running \\u202e\\$(check) x',
    );
    const told = resultMessage({ outcome: 'applied', summary: `done${ESC}all good` });
    expect(told.text).toBe('surehand: changes applied: done\\x1b[2K\\x1b[1Gall good');
  });
});

describe('only the person answers, on purpose', () => {
  it('puts the refusal first (Enter) and makes it what Escape means; "always" is never first', () => {
    const dialog = questionDialog('surehand wants to run `curl x`.', ['Allow once', 'Always allow this command', 'Deny']);
    expect(dialog.order).toEqual(['Deny', 'Allow once', 'Always allow this command']);
    expect(dialog.refusal).toBe('Deny');
    expect(dialog.message).toBe('surehand wants to run a command');
    const noRefusal = questionDialog('pick one', ['Always allow', 'Allow once']);
    expect(noRefusal.order[0]).toBe('Allow once');
    expect(noRefusal.refusal).toBeUndefined();
  });
});

describe('files that change how tools run', () => {
  it('are flagged from their change annotations', () => {
    const proposal = parseProposal(edit, texts);
    expect(proposal.files[0].hunks.every((h) => h.governs === undefined)).toBe(true);
    expect(proposal.files[1].hunks[0].governs).toBe('VS Code workspace settings');
    expect(proposal.files[2].governs).toBe('surehand project settings');
    const settings = [...lensRows([proposal.files[1]], false).values()].flat();
    expect(settings[0].title.startsWith(`${GOVERNS_MARK} surehand: editor settings`)).toBe(true);
    expect(settings[0].tooltip).toContain('changes how tools run: VS Code workspace settings');
    const created = [...lensRows([proposal.files[2]], false).values()].flat();
    expect(created[0].title.startsWith(GOVERNS_MARK)).toBe(true);
    expect(created[0].tooltip).toContain('changes how tools run: surehand project settings');
    const nodes = proposal.files.flatMap((f) => childNodes(f));
    expect(nodes.filter((n) => n.governs !== undefined).map((n) => n.description)).toEqual([
      'line 1: replace 1 line with 1 · changes how tools run: VS Code workspace settings',
      'allow curl · changes how tools run: surehand project settings',
    ]);
    expect(fileNodes(proposal).map((n) => n.governs)).toEqual([undefined, 'VS Code workspace settings', 'surehand project settings']);
  });

  it('are left out of "accept all", in a file and across files, and accepted one by one', () => {
    const proposal = parseProposal(edit, texts);
    const held = decideAll(proposal, 'accepted');
    expect(held).toEqual({ count: 2, files: [1, 2] });
    expect(proposal.files[0].hunks.map((h) => h.decision)).toEqual(['accepted', 'accepted']);
    expect(proposal.files[1].hunks[0].decision).toBe('pending');
    expect(proposal.files[2].operation).toBe('pending');
    expect(isSettled(proposal)).toBe(false);
    expect(decideFile(proposal, 1, 'accepted')).toEqual({ changed: false, held: { count: 1, files: [1] } });
    expect(decideHunk(proposal, proposal.files[1].hunks[0].id, 'accepted')).toBe(true);
    expect(decideOperation(proposal, 2, 'accepted')).toBe(true);
    expect(isSettled(proposal)).toBe(true);
  });

  it('are rejected with "reject all"', () => {
    const proposal = parseProposal(edit, texts);
    expect(decideAll(proposal, 'rejected').count).toBe(0);
    expect(isSettled(proposal)).toBe(true);
  });
});

describe('a "no" is final for the task and reports are true', () => {
  it('brings a hunk rejected earlier in the task back rejected, for good', () => {
    const refused = new Set([JSON.stringify([CALC, `halve ${RLO}floors`, `    return x // 2  # ${RLO}evil\n`])]);
    const proposal = parseProposal(edit, texts, {
      id: 'r2:',
      refused: (uri, label, newText) => refused.has(JSON.stringify([uri, label, newText])),
    });
    const [fix, halve] = proposal.files[0].hunks;
    expect(halve).toMatchObject({ decision: 'rejected', refused: true });
    expect(fix.decision).toBe('pending');
    expect(fix.id).toBe('r2:0.0');
    expect(decideHunk(proposal, halve.id, 'accepted')).toBe(false);
    expect(decideHunk(proposal, halve.id, 'pending')).toBe(false);
    decideAll(proposal, 'accepted');
    expect(halve.decision).toBe('rejected');
    const rows = [...lensRows([proposal.files[0]], false).values()].flat();
    expect(rows.map((l) => l.title)).toContain('Rejected earlier in this task: halve \\u202efloors');
    expect(rows.some((l) => l.command !== '' && l.args.includes(halve.id))).toBe(false);
  });

  it('ties a lens to its proposal: the ids of an older review decide nothing in a newer one', () => {
    const older = parseProposal(edit, texts, { id: 'r1:' });
    const newer = parseProposal(edit, texts, { id: 'r2:' });
    expect(decideHunk(newer, older.files[0].hunks[0].id, 'accepted')).toBe(false);
    const create = [...lensRows([newer.files[2]], false).values()].flat().find((l) => l.title === 'Accept New File');
    expect(create?.args).toEqual([2, 'r2:']);
  });

  it('tells the server nothing was accepted when the edit did not go in', () => {
    const proposal = parseProposal(edit, texts);
    decideAll(proposal, 'accepted');
    expect(reviewed(proposal, false).some((h) => h.accepted)).toBe(false);
    expect(reviewed(proposal, true).filter((h) => h.accepted)).toHaveLength(2);
  });

  it('counts every round of the task, and the final message says what the buffers hold', () => {
    const tally = emptyTally();
    const first = parseProposal(edit, texts);
    decideHunk(first, first.files[0].hunks[0].id, 'accepted');
    decideHunk(first, first.files[0].hunks[1].id, 'rejected');
    decideAll(first, 'rejected');
    countInto(tally, first, true);
    expect(tally).toMatchObject({ applied: 1, rejected: 3, stale: 0 });
    // The second round: only the rejected hunk, back, and rejected for good: counted once.
    const back: WorkspaceEdit = {
      documentChanges: [{ textDocument: { uri: CALC, version: 2 }, edits: [{ range: lines(4, 5), newText: '    return x // 2\n', annotationId: 'surehand-2' }] }],
      changeAnnotations: edit.changeAnnotations,
    };
    const second = parseProposal(back, texts, { refused: () => true });
    expect(pendingCount(second)).toBe(0);
    countInto(tally, second, false);
    expect(tally).toMatchObject({ applied: 1, rejected: 3, stale: 0 });
    // The server judged the last round alone ("discarded"): the message follows the buffers.
    const told = resultMessage({ outcome: 'discarded', summary: 'fixed add' }, tally);
    expect(told.text).toBe('surehand: some changes applied: fixed add (reviewed: 1 applied, 3 rejected.)');
  });

  it('says a hunk typed in was not applied, never that it was applied or merely left out', () => {
    const told = resultMessage({ outcome: 'applied' }, { applied: 0, rejected: 0, stale: 1 });
    expect(told.text).toBe('surehand: changes discarded (reviewed: 0 applied, 1 not applied because you edited their lines.)');
  });
});
