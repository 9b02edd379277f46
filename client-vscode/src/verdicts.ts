/**
 * The tests' verdict on a proposal, and on the part of it the person
 * accepted, as `surehand/tests` and `surehand.checkTests` carry it
 * (docs/protocol.md), and the words the extension shows for it. Free of the
 * `vscode` module.
 *
 * Every text of a verdict comes from the server and may carry a model's
 * words (a command, a test's name): each is shown through `visible()`.
 * What ran, on what and how contained is said by the verdict's own `line`.
 */

import { visible, visibleLabel, visibleNotice } from './visible';

export const TESTS_NOTIFICATION = 'surehand/tests';
/** The server's command that runs the last proposal's tests on what the editor holds now. */
export const CHECK_TESTS = 'surehand.checkTests';
/** The button that starts that check when the server offers it (`testsOnAccepted: "offer"`). */
export const RUN_ON_ACCEPTED = 'Run tests on what you accepted';
export const RUNNING_TITLE = 'surehand: running the tests on what you accepted…';

export type VerdictStatus = 'passed' | 'failed' | 'error' | 'stale' | 'not_run';
const STATUSES: readonly VerdictStatus[] = ['passed', 'failed', 'error', 'stale', 'not_run'];

/** One run of a test command (the fields this reads). */
export interface TestRun {
  readonly result: string;
  readonly failing: readonly string[];
  readonly where: string;
  readonly ranBy: string;
}

export interface Verdict {
  readonly command: string;
  readonly status: VerdictStatus;
  readonly on: 'proposal' | 'accepted';
  /** The verdict in a sentence: what ran, its result, on what, by whom, how contained. */
  readonly line: string;
  /** In a few words: `41 passed`, `2 failed`, `stale`, `not run`, `error`. */
  readonly short: string;
  readonly why: string;
  readonly run: TestRun | null;
}

/** A `surehand/tests` notification's params. */
export interface TestsParams {
  readonly task: string;
  readonly on: 'proposal' | 'accepted';
  readonly state: 'done' | 'running' | 'offered';
  readonly headline: string;
  readonly summary: string;
  readonly verdicts: readonly Verdict[];
  readonly rejected: number;
  readonly hunks: number;
}

/** `surehand.checkTests`'s result. */
export interface CheckResult {
  readonly verdicts: readonly Verdict[];
  readonly headline: string;
  readonly summary: string;
}

type Fields = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const fields = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;

function readRun(value: unknown): TestRun | null {
  const run = fields(value);
  if (run === undefined) {
    return null;
  }
  const failing = Array.isArray(run.failing) ? run.failing.filter((n): n is string => typeof n === 'string') : [];
  return { result: text(run.result), failing, where: text(run.where), ranBy: text(run.ranBy) };
}

/** One verdict as the server sent it, every field checked; undefined when it is not one. */
export function readVerdict(value: unknown): Verdict | undefined {
  const v = fields(value);
  const status = STATUSES.find((s) => s === v?.status);
  if (v === undefined || status === undefined) {
    return undefined;
  }
  return {
    command: text(v.command),
    status,
    on: v.on === 'accepted' ? 'accepted' : 'proposal',
    line: text(v.line),
    short: text(v.short),
    why: text(v.why),
    run: readRun(v.run),
  };
}

/** A list of verdicts as the server sent it (anything else: none). */
export function readVerdicts(value: unknown): Verdict[] {
  return Array.isArray(value) ? value.map(readVerdict).filter((v): v is Verdict => v !== undefined) : [];
}

/** A `surehand/tests` notification's params, every field checked; undefined when they are not such. */
export function readTests(params: unknown): TestsParams | undefined {
  const p = fields(params);
  const on = p?.on === 'proposal' || p?.on === 'accepted' ? p.on : undefined;
  const state = p?.state === 'done' || p?.state === 'running' || p?.state === 'offered' ? p.state : undefined;
  if (p === undefined || on === undefined || state === undefined) {
    return undefined;
  }
  return {
    task: text(p.task),
    on,
    state,
    headline: text(p.headline),
    summary: text(p.summary),
    verdicts: readVerdicts(p.verdicts),
    rejected: number(p.rejected),
    hunks: number(p.hunks),
  };
}

/** `surehand.checkTests`'s result, every field checked (anything else: no verdicts, no words). */
export function readCheckResult(result: unknown): CheckResult {
  const r = fields(result);
  return { verdicts: readVerdicts(r?.verdicts), headline: text(r?.headline), summary: text(r?.summary) };
}

/** Whether a verdict says the tests did not pass (failed, or could not run to the end). */
export function isBad(verdict: Verdict): boolean {
  return verdict.status === 'failed' || verdict.status === 'error';
}

/** The verdicts taken together, the worst first: failed or error, stale, not run, passed. */
export function overall(verdicts: readonly Verdict[]): VerdictStatus {
  const order: VerdictStatus[] = ['failed', 'error', 'stale', 'not_run', 'passed'];
  return order.find((status) => verdicts.some((v) => v.status === status)) ?? 'not_run';
}

/** For a label (a tree item, a view's description): `tests: 1 failed; 3 passed`, made visible. */
export function headlineLabel(tests: Pick<CheckResult, 'headline' | 'verdicts'>): string {
  const said = tests.headline.trim() || `tests: ${tests.verdicts.map(shortWords).join('; ')}`;
  return visibleLabel(said);
}

/** A verdict in a few words, made visible. */
export function shortWords(verdict: Verdict): string {
  return visible(verdict.short.trim() || verdict.status.replace('_', ' '));
}

/** A verdict's sentence, made visible (the server's, else one made of its command and few words). */
export function verdictLine(verdict: Verdict): string {
  return visible(verdict.line.trim() || `tests \`${verdict.command}\`: ${verdict.short || verdict.status}`);
}

/** The failing tests' names a verdict's run kept, made visible. */
export function failingNames(verdict: Verdict): string[] {
  return (verdict.run?.failing ?? []).map((name) => visible(name));
}

export interface Notice {
  readonly severity: 'info' | 'warning';
  readonly text: string;
}

/**
 * What to tell the person of a check of what they accepted (the accepted
 * hunks sit unsaved in the buffers): the headline and every verdict's line;
 * a warning when a test failed or could not run. Without verdicts, the
 * server's words (why nothing ran).
 */
export function acceptedNotice(tests: CheckResult): Notice {
  if (tests.verdicts.length === 0) {
    const why = tests.summary.trim() || 'no tests ran on what you accepted.';
    return { severity: 'info', text: visibleNotice(`surehand: ${why}`) };
  }
  const lines = tests.verdicts.map(verdictLine).join(' ');
  const severity = tests.verdicts.some(isBad) ? 'warning' : 'info';
  return { severity, text: visibleNotice(`surehand: ${headlineLabel(tests)} on what you accepted, not saved yet. ${lines}`) };
}

/** The offer to check what was accepted (`testsOnAccepted: "offer"`). */
export function offerNotice(tests: Pick<TestsParams, 'rejected' | 'hunks'>): Notice {
  const left = tests.hunks > 0 ? `${tests.rejected} of ${tests.hunks} hunks` : 'some hunks';
  return {
    severity: 'info',
    text:
      `surehand: you rejected ${left}, so the proposal's test verdict is not about what is in your buffers now. ` +
      'Run the tests on what you accepted (sandboxed, in a copy of the workspace; nothing is written)?',
  };
}

/** The tests' words for a task's final message: ` Tests on the proposal: 1 failed; on what you accepted: 2 passed.` */
export function outcomeTests(proposal: readonly Verdict[], accepted: readonly Verdict[]): string {
  const parts: string[] = [];
  if (proposal.length > 0) {
    parts.push(`on the proposal: ${proposal.map(shortWords).join(', ')}`);
  }
  if (accepted.length > 0) {
    parts.push(`on what you accepted: ${accepted.map(shortWords).join(', ')}`);
  }
  return parts.length === 0 ? '' : ` Tests ${parts.join('; ')}.`;
}
