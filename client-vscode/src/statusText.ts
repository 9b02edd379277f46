/**
 * What the status bar item says. Free of the `vscode` module.
 *
 * In order of precedence: waiting for review ("n hunks"), working (the
 * current step in words), the server starting or stopped, idle
 * ("$(sparkle) surehand").
 */

import type { Pending } from './review/decide';
import { visibleLabel } from './visible';
import { count } from './words';

export interface StatusState {
  readonly server: 'starting' | 'running' | 'stopped';
  /** Why the server is stopped. */
  readonly reason?: string;
  /** The current step, while a task runs. */
  readonly working?: string;
  /** Decisions left, while a proposal is under review. */
  readonly reviewing?: Pending;
}

export interface StatusText {
  readonly text: string;
  readonly tooltip: string;
  /** What clicking the item does. */
  readonly command: string;
}

const MAX_STEP = 48;

export function statusText(state: StatusState): StatusText {
  if (state.reviewing !== undefined) {
    const left = pendingWords(state.reviewing);
    return {
      text: `$(diff) surehand: review ${left}`,
      tooltip: `surehand: ${left} waiting for review (click to go to the next one)`,
      command: 'surehand.review.next',
    };
  }
  if (state.working !== undefined) {
    // The step carries model-chosen text (a command, a path): made visible, its "$(" not an icon.
    const working = visibleLabel(state.working);
    const step = working.length > MAX_STEP ? `${working.slice(0, MAX_STEP - 1)}…` : working;
    return {
      text: `$(loading~spin) surehand: ${step}`,
      tooltip: `surehand is working: ${working} (click for the trace)`,
      command: 'surehand.showTrace',
    };
  }
  if (state.server === 'starting') {
    return {
      text: '$(loading~spin) surehand',
      tooltip: 'surehand: starting the language server',
      command: 'surehand.showTrace',
    };
  }
  if (state.server === 'stopped') {
    return {
      text: '$(warning) surehand',
      tooltip: `surehand is not running: ${visibleLabel(state.reason ?? 'stopped')} (click for the trace)`,
      command: 'surehand.showTrace',
    };
  }
  return { text: '$(sparkle) surehand', tooltip: 'surehand: ask for a change', command: 'surehand.askPrompt' };
}

/** "2 hunks, 1 rename": hunks and file operations counted apart ("0 hunks" only when nothing else is left). */
export function pendingWords(pending: Pending): string {
  const parts: string[] = [];
  if (pending.hunks > 0) {
    parts.push(count(pending.hunks, 'hunk'));
  }
  if (pending.create > 0) {
    parts.push(count(pending.create, 'new file'));
  }
  if (pending.rename > 0) {
    parts.push(count(pending.rename, 'rename'));
  }
  if (pending.delete > 0) {
    parts.push(count(pending.delete, 'deletion'));
  }
  return parts.length > 0 ? parts.join(', ') : count(0, 'hunk');
}

/**
 * The `kind` of a `surehand/step` notification: the server's wire names
 * (`docs/protocol.md`), never its class names.
 */
export const STEP_KINDS = ['step_started', 'model_calling', 'model_retry', 'tool_started', 'tool_finished', 'task_ended'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** A `surehand/step` notification's params (the fields this reads; every field is checked before use). */
export interface StepParams {
  readonly kind?: unknown;
  readonly step?: unknown;
  readonly summary?: unknown;
  /** The tool's name, in every event about a call. */
  readonly tool?: unknown;
  readonly message?: unknown;
}

/** The words for a `surehand/step` notification, or undefined when it says nothing worth showing. */
export function stepText(params: StepParams): string | undefined {
  const step = typeof params.step === 'number' ? `step ${params.step}` : 'step';
  switch (params.kind as StepKind | undefined) {
    case 'step_started':
      return `${step}: thinking`;
    case 'model_calling':
      return typeof params.tool === 'string' ? `${step}: writing ${params.tool}` : undefined;
    case 'tool_started':
    case 'tool_finished':
      return typeof params.summary === 'string' ? params.summary : undefined;
    case 'model_retry':
    case 'task_ended':
      return typeof params.message === 'string' ? params.message : undefined;
    default:
      return undefined;
  }
}
