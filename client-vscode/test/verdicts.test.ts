/**
 * What the review and the notifications say of the tests' verdicts
 * (`surehand/tests`, `surehand.checkTests`): the headline, each verdict's
 * sentence, the failing tests' names, every server text made visible.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultMessage } from '../src/ask';
import { findTestNode, testNodes, testParent } from '../src/review/testNodes';
import { SERVER_KEYS } from '../src/settings';
import { hiddenIn } from '../src/visible';
import {
  acceptedNotice,
  CHECK_TESTS,
  headlineLabel,
  offerNotice,
  outcomeTests,
  overall,
  readCheckResult,
  readTests,
  verdictLine,
  type TestsParams,
} from '../src/verdicts';

const SANDBOX = 'sandboxed (bubblewrap, no network)';

/** A run as the server's `TestRun.as_json` writes it. */
function run(status: string, result: string, failing: string[] = [], ranBy = 'model'): Record<string, unknown> {
  return {
    status,
    exitCode: status === 'passed' ? 0 : 1,
    passed: 3,
    failed: failing.length,
    failing,
    seconds: 0.8,
    ranBy,
    contained: true,
    where: SANDBOX,
    state: '0123456789abcdef',
    result,
  };
}

const PASSED = {
  command: 'npm test',
  argv: ['npm', 'test'],
  status: 'passed',
  on: 'proposal',
  line: `tests \`npm test\`: 3 passed on the proposed change; run by the model, ${SANDBOX}, in a copy of the workspace, 0.8 s.`,
  short: '3 passed',
  why: '',
  run: run('passed', '3 passed'),
  baseline: null,
};

const FAILED = {
  command: 'python3 -m pytest -q',
  argv: ['python3', '-m', 'pytest', '-q'],
  status: 'failed',
  on: 'proposal',
  line:
    `tests \`python3 -m pytest -q\`: 2 failed, 3 passed on the proposed change; failing: test_calc.py::test_halve, test_calc.py::test_\\x1b[2Kok; ` +
    `run by the model, ${SANDBOX}, in a copy of the workspace, 0.8 s; on the untouched workspace: 5 passed.`,
  short: '2 failed',
  why: '',
  // A test's name is the model's to choose: it may carry an escape and an icon's syntax.
  run: run('failed', '2 failed, 3 passed', ['test_calc.py::test_halve', 'test_calc.py::test_\u001b[2Kok $(check)']),
  baseline: run('passed', '5 passed'),
};

const STALE = {
  command: 'npm test',
  argv: ['npm', 'test'],
  status: 'stale',
  on: 'proposal',
  line: 'tests `npm test`: not run on the proposed change; its last run was on an earlier state (3 passed), and checking before review is off (testsBeforeReview).',
  short: 'stale',
  why: 'checking before review is off (testsBeforeReview)',
  run: run('passed', '3 passed'),
  baseline: null,
};

const NOT_RUN = {
  command: 'make test',
  argv: ['make', 'test'],
  status: 'not_run',
  on: 'proposal',
  line: 'tests `make test`: not run on the proposed change: it would need your approval (make is not on the allowlist).',
  short: 'not run',
  why: 'it would need your approval (make is not on the allowlist)',
  run: null,
  baseline: null,
};

function tests(verdicts: unknown[], extra: Record<string, unknown> = {}): TestsParams {
  const params = {
    task: 'task-1',
    on: 'proposal',
    state: 'done',
    headline: `tests: ${verdicts.map((v) => (v as { short: string }).short).join('; ')}`,
    summary: verdicts.map((v) => (v as { line: string }).line).join(' '),
    verdicts,
    rejected: 0,
    hunks: 4,
    ...extra,
  };
  const read = readTests(params);
  if (read === undefined) {
    throw new Error('not read');
  }
  return read;
}

/** Whether a shown text carries a hidden character itself, not its escape. */
/** What the headline's row says in its tooltip: every verdict's sentence. */
const sentences = (tests: TestsParams): string | undefined => testNodes(tests)[0]?.tooltip;

const RAW = { test: (text: string): boolean => hiddenIn(text) !== undefined };

describe('a proposal that passed', () => {
  const passed = tests([PASSED]);

  it('shows the headline and the sentence that says what ran, on what and how contained', () => {
    const [node] = testNodes(passed);
    expect(node.label).toBe('tests: 3 passed');
    expect(node.description).toBe(`npm test on the proposed change · run by the model, ${SANDBOX}`);
    expect(node.tooltip).toBe(PASSED.line);
    expect(node.status).toBe('passed');
    expect(node.children).toEqual([]);
    expect(sentences(passed)).toBe(PASSED.line);
    expect(headlineLabel(passed)).toBe('tests: 3 passed');
  });
});

describe('a proposal with failing tests', () => {
  const failed = tests([FAILED]);

  it('holds the failing tests under the headline, their names made visible; closed, so the files stay in view', () => {
    const [node] = testNodes(failed);
    expect(node.label).toBe('tests: 2 failed');
    expect(node.status).toBe('failed');
    expect(node.open).toBe(false);
    expect(node.children.map((c) => c.label)).toEqual(['test_calc.py::test_halve', 'test_calc.py::test_\\x1b[2Kok \\$(check)']);
    expect(node.children.every((c) => c.description === 'failed' && c.tooltip.endsWith(FAILED.line))).toBe(true);
    const labels = node.children.map((c) => `${c.label} ${c.tooltip}`).join(' ').replace(/\n/g, ' ');
    expect(RAW.test(labels)).toBe(false);
  });

  it('says in the row what ran, on what and how contained, and in its tooltip the result and the baseline', () => {
    expect(testNodes(failed)[0].description).toBe(`python3 -m pytest -q on the proposed change · run by the model, ${SANDBOX}`);
    const message = sentences(failed) ?? '';
    expect(message).toContain('2 failed, 3 passed on the proposed change');
    expect(message).toContain(SANDBOX);
    expect(message).toContain('on the untouched workspace: 5 passed');
  });

  it("shows a sentence's hidden characters escaped in every tooltip", () => {
    const spoofed = tests([{ ...FAILED, line: 'tests `touch x \u001b[2Kpytest`: 2 failed \u202eok.' }]);
    expect(sentences(spoofed)).toBe('tests `touch x \\x1b[2Kpytest`: 2 failed \\u202eok.');
    const tooltips = testNodes(spoofed).flatMap((n) => [n.tooltip, ...n.children.map((c) => c.tooltip)]);
    expect(tooltips.join(' ').replace(/\n/g, ' ')).toContain('\\u202eok');
    expect(RAW.test(tooltips.join(' ').replace(/\n/g, ' '))).toBe(false);
  });

  it('finds each node and its parent by id', () => {
    const nodes = testNodes(failed);
    expect(findTestNode(nodes, 'tests/1')?.label).toContain('test_');
    expect(testParent(nodes, 'tests/1')?.id).toBe('tests');
    expect(testParent(nodes, 'tests')).toBeUndefined();
  });
});

describe('stale and not run verdicts', () => {
  it('say why they were not run, and are not shown as failures', () => {
    const several = tests([STALE, NOT_RUN, FAILED]);
    const [node] = testNodes(several);
    expect(node.label).toBe('tests: stale; not run; 2 failed');
    expect(node.description).toBe('on the proposed change');
    expect(node.status).toBe('failed');
    expect(node.children.map((c) => [c.label, c.description, c.status])).toEqual([
      ['npm test', 'stale · checking before review is off (testsBeforeReview)', 'stale'],
      ['make test', 'not run · it would need your approval (make is not on the allowlist)', 'not_run'],
      ['python3 -m pytest -q', `2 failed · run by the model, ${SANDBOX}`, 'failed'],
    ]);
    expect(node.children[2].children).toHaveLength(2);
    expect(node.children[2].open).toBe(true);
    expect(node.tooltip.split('\n')).toEqual([STALE.line, NOT_RUN.line, expect.stringContaining('2 failed')]);
    expect(overall(tests([STALE, NOT_RUN]).verdicts)).toBe('stale');
    expect(overall(tests([NOT_RUN]).verdicts)).toBe('not_run');
    expect(overall(tests([PASSED, { ...FAILED, status: 'error', short: 'error' }]).verdicts)).toBe('error');
  });

  it('without a headline from the server, make one of the verdicts\' few words', () => {
    expect(headlineLabel(tests([STALE, NOT_RUN], { headline: '' }))).toBe('tests: stale; not run');
  });
});

describe('the notifications after a review', () => {
  const accepted = (verdict: Record<string, unknown>, line: string): Record<string, unknown> => ({
    ...verdict,
    on: 'accepted',
    rejected: 1,
    hunks: 4,
    line,
  });

  it('warn with the headline and the sentence when a test failed on what was accepted', () => {
    const line = 'tests `python3 -m pytest -q`: 1 failed, 3 passed on what you accepted (1 of 4 hunks rejected); failing: test_halve; run by surehand.';
    const notice = acceptedNotice(tests([accepted({ ...FAILED, short: '1 failed' }, line)], { on: 'accepted' }));
    expect(notice.severity).toBe('warning');
    expect(notice.text).toBe(`surehand: tests: 1 failed on what you accepted, not saved yet. ${line}`);
  });

  it('inform when they passed', () => {
    const line = 'tests `npm test`: 3 passed on what you accepted (1 of 4 hunks rejected); run by surehand.';
    const notice = acceptedNotice(tests([accepted(PASSED, line)], { on: 'accepted' }));
    expect(notice).toEqual({ severity: 'info', text: `surehand: tests: 3 passed on what you accepted, not saved yet. ${line}` });
  });

  it('show a server sentence with hidden characters escaped and no link', () => {
    const line = 'tests `x`: 1 failed on what you accepted (\u202eevil) [see](command:workbench.action.terminal.new).';
    const notice = acceptedNotice(tests([accepted({ ...FAILED, short: '1 failed' }, line)], { on: 'accepted' }));
    expect(notice.text).toContain('(\\u202eevil) [see] (command:');
    expect(RAW.test(notice.text)).toBe(false);
  });

  it("tell surehand.checkTests's refusal in the server's words", () => {
    const refusal = readCheckResult({ verdicts: [], headline: '', summary: 'A task is running or under review: check the tests once it ends.' });
    expect(acceptedNotice(refusal)).toEqual({
      severity: 'info',
      text: 'surehand: A task is running or under review: check the tests once it ends.',
    });
    expect(readCheckResult(null).verdicts).toEqual([]);
  });

  it('offer the check with what was left out', () => {
    const offer = offerNotice(tests([], { on: 'accepted', state: 'offered', rejected: 2, hunks: 5 }));
    expect(offer.text).toContain('you rejected 2 of 5 hunks');
    expect(offer.text).toContain('Run the tests on what you accepted');
  });
});

describe('reading surehand/tests', () => {
  it('refuses what is not one, and drops verdicts it cannot read', () => {
    expect(readTests(null)).toBeUndefined();
    expect(readTests({ on: 'elsewhere', state: 'done' })).toBeUndefined();
    expect(readTests({ on: 'accepted', state: 'later' })).toBeUndefined();
    const read = tests([PASSED, { status: 'maybe' }, 'x', { ...NOT_RUN, line: 42, run: 'no' }]);
    expect(read.verdicts.map((v) => v.status)).toEqual(['passed', 'not_run']);
    expect(read.verdicts[1].line).toBe('');
    expect(verdictLine(read.verdicts[1])).toBe('tests `make test`: not run');
    expect(read.verdicts[1].run).toBeNull();
  });

  it('a running check has no verdicts: no row shows', () => {
    const running = tests([], { on: 'accepted', state: 'running' });
    expect(testNodes(running)).toEqual([]);
    expect(sentences(running)).toBeUndefined();
  });
});

describe("a task's final message", () => {
  it('says the tests on the proposal and on what was accepted', () => {
    expect(outcomeTests(tests([FAILED]).verdicts, tests([PASSED]).verdicts)).toBe(
      ' Tests on the proposal: 2 failed; on what you accepted: 3 passed.',
    );
    expect(outcomeTests([], [])).toBe('');
    const message = resultMessage({ outcome: 'applied', summary: 'done', tests: [PASSED] });
    expect(message.text).toBe('surehand: changes applied: done Tests on the proposal: 3 passed.');
    expect(resultMessage({ outcome: 'applied', summary: 'done', tests: 'nonsense' }).text).toBe('surehand: changes applied: done');
  });
});

describe('the manifest', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf-8')) as {
    contributes: {
      commands: { command: string; title: string }[];
      menus: { commandPalette: { command: string; when: string }[] };
      configuration: { properties: Record<string, { default: unknown; enum?: string[] }> };
    };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  };

  it("puts the server's check in the palette, outside a review", () => {
    expect(manifest.contributes.commands).toContainEqual({ command: CHECK_TESTS, title: 'Run Tests on What You Accepted', category: 'Surehand' });
    expect(manifest.contributes.menus.commandPalette).toContainEqual({ command: CHECK_TESTS, when: '!surehand.reviewing' });
  });

  it('declares the tests settings, passes them to the server, and keeps the test commands from an untrusted folder', () => {
    const properties = manifest.contributes.configuration.properties;
    expect(properties['surehand.testCommands'].default).toEqual([]);
    expect(properties['surehand.testsBeforeReview'].default).toBe(true);
    expect(properties['surehand.testsOnAccepted'].default).toBe('run');
    expect(properties['surehand.testsOnAccepted'].enum).toEqual(['run', 'offer']);
    expect(SERVER_KEYS).toEqual(expect.arrayContaining(['testCommands', 'testsBeforeReview', 'testsOnAccepted']));
    expect(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations).toContain('surehand.testCommands');
  });
});
