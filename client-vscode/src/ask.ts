/**
 * The `surehand.ask` command's argument and what its result tells the user.
 * Free of the `vscode` module.
 */

import type { Range } from './review/text';
import { outcomeTests, readVerdicts } from './verdicts';
import { visible } from './visible';
import { count } from './words';

export interface AskArgument {
  readonly task: string;
  readonly uri?: string;
  readonly range?: Range;
}

export interface EditorContext {
  readonly uri: string;
  /** The selection; sent only when it is not empty. */
  readonly selection?: Range;
}

/** `{task, uri?, range?}`: the active file and its selection give the task its context. */
export function askArgument(task: string, context: EditorContext | undefined): AskArgument {
  if (context === undefined) {
    return { task: task.trim() };
  }
  const { uri, selection: s } = context;
  if (s === undefined || (s.start.line === s.end.line && s.start.character === s.end.character)) {
    return { task: task.trim(), uri };
  }
  // A plain copy: VS Code's Selection does not serialise as an LSP range.
  const range = {
    start: { line: s.start.line, character: s.start.character },
    end: { line: s.end.line, character: s.end.character },
  };
  return { task: task.trim(), uri, range };
}

/** The result the server returns for `surehand.ask` (the fields this reads). */
export interface AskResult {
  readonly outcome?: string;
  readonly ending?: string;
  readonly summary?: string;
  readonly files?: Record<string, string>;
  readonly conflicts?: Record<string, number>;
  readonly steps?: number;
  readonly tokens?: number;
  /** The tests' verdicts on the proposal (`verdicts.ts`), and on what the person accepted when that was checked. */
  readonly tests?: unknown;
  readonly testsAccepted?: unknown;
}

export interface Message {
  readonly severity: 'info' | 'warning' | 'error';
  readonly text: string;
}

const OUTCOMES: Record<string, { words: string; severity: Message['severity'] }> = {
  applied: { words: 'changes applied', severity: 'info' },
  partly_applied: { words: 'some changes applied', severity: 'info' },
  discarded: { words: 'changes discarded', severity: 'info' },
  no_changes: { words: 'no changes', severity: 'info' },
  conflict: { words: 'changes clashed with your edits', severity: 'warning' },
  cancelled: { words: 'cancelled', severity: 'info' },
  busy: { words: 'already working on a task', severity: 'warning' },
  error: { words: 'failed', severity: 'error' },
};

/** Endings that say the task did not get where it was going, whatever the review's outcome. */
const ENDINGS: Record<string, { words: string; severity: Message['severity'] }> = {
  model_error: { words: 'the model endpoint failed', severity: 'error' },
  step_limit: { words: 'stopped at the step limit', severity: 'warning' },
  malformed: { words: 'the model kept sending calls that could not be run', severity: 'warning' },
};

/** What the task's reviews did, over all their rounds, as the extension applied them (`review/decide.ts`). */
export interface ReviewCount {
  readonly applied: number;
  readonly rejected: number;
  readonly stale: number;
}

/**
 * The words to say: an ending that failed is said even when the outcome is
 * "no changes". With `reviews` (what this window's reviews of the task put
 * in the buffers, every round of it), the outcome word follows them when
 * the server's says otherwise (it judges the last round only), and the
 * message counts them.
 */
export function resultMessage(result: AskResult | null | undefined, reviews?: ReviewCount): Message {
  let outcome = OUTCOMES[result?.outcome ?? ''] ?? { words: visible(result?.outcome ?? 'no result'), severity: 'warning' };
  const ending = ENDINGS[result?.ending ?? ''];
  if (ending !== undefined && (result?.outcome === 'no_changes' || result?.outcome === 'error')) {
    outcome = ending;
  }
  const reviewed = reviews !== undefined && reviews.applied + reviews.rejected + reviews.stale > 0;
  if (reviewed && ['applied', 'partly_applied', 'discarded', 'no_changes', 'conflict'].includes(result?.outcome ?? '')) {
    const left = reviews.rejected + reviews.stale;
    outcome = reviews.applied === 0 ? OUTCOMES.discarded : left > 0 ? OUTCOMES.partly_applied : OUTCOMES.applied;
    if (result?.outcome === 'conflict' && reviews.applied === 0) {
      outcome = OUTCOMES.conflict;
    }
  }
  const summary = visible(result?.summary?.trim() ?? '');
  const conflicts = Object.entries(result?.conflicts ?? {}).map(([file, n]) => `${visible(file)} (${count(n, 'hunk')})`);
  const parts = [`surehand: ${outcome.words}`];
  if (summary && !sameWords(summary, outcome.words)) {
    parts.push(`: ${summary}`);
  }
  if (reviewed) {
    const said = [`${reviews.applied} applied`];
    if (reviews.rejected > 0) {
      said.push(`${reviews.rejected} rejected`);
    }
    if (reviews.stale > 0) {
      said.push(`${reviews.stale} not applied because you edited their lines`);
    }
    parts.push(` (reviewed: ${said.join(', ')}.)`);
  }
  if (conflicts.length > 0) {
    parts.push(` Not applied, clashing with your edits: ${conflicts.join(', ')}.`);
  }
  parts.push(outcomeTests(readVerdicts(result?.tests), readVerdicts(result?.testsAccepted)));
  return { severity: outcome.severity, text: parts.join('') };
}

/** "Cancelled." says nothing "cancelled" did not. */
function sameWords(a: string, b: string): boolean {
  const plain = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
  return plain(a) === plain(b);
}
