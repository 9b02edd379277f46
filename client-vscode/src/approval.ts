/**
 * The server's questions (`window/showMessageRequest`): command approvals
 * above all. Free of the `vscode` module.
 *
 * The server reports "Running <command>" when the model calls the tool, and
 * asks before it runs anything outside its allowlist: while that question
 * is open, the status and the progress say the command waits for approval,
 * not that it runs.
 *
 * The question is a modal dialog: it stays on screen until answered (a
 * toast would slide into the notification centre), and keys typed for
 * something else cannot answer it with anything but "no": its first button
 * (the dialog's default, the one Enter presses) is the refusal ("Deny");
 * Escape, VS Code's own Cancel and closing the dialog refuse too; "Always
 * allow" is never the default. Its text is made
 * visible (`visible.ts`): a command carrying an escape sequence or a bidi
 * override reads as what it is.
 */

import { visible } from './visible';

/** "waiting for your approval: rm -rf build" for the server's approval question, else undefined. */
export function approvalStep(message: string): string | undefined {
  const match = /wants to run `([^`]*)`/.exec(message);
  if (match === null) {
    return undefined;
  }
  return `waiting for your approval: ${visible(match[1])}`;
}

/** Answers that refuse: the one Enter and Escape give. */
const REFUSALS = /^(deny|discard|cancel|no|reject)\b/i;
/** Answers that must never be one key away. */
const STANDING = /^always\b/i;

export interface Dialog {
  /** The dialog's title line. */
  readonly message: string;
  /** Its body: the question, visible, and how to answer. */
  readonly detail: string;
  /** The server's action titles in the order shown: the refusal first (Enter), "always" last. */
  readonly order: readonly string[];
  /** The title Escape (closing) stands for: the refusal, when the question has one. */
  readonly refusal: string | undefined;
}

/** How a server question shows as a modal dialog. */
export function questionDialog(message: string, titles: readonly string[]): Dialog {
  const refusal = titles.find((t) => REFUSALS.test(t));
  const standing = titles.filter((t) => STANDING.test(t) && t !== refusal);
  const rest = titles.filter((t) => t !== refusal && !standing.includes(t));
  const order = [...(refusal === undefined ? [] : [refusal]), ...rest, ...standing];
  const approval = /wants to run `/.test(message);
  const help =
    refusal === undefined
      ? 'Escape closes this question without an answer.'
      : `Enter, Escape and Cancel answer "${visible(refusal)}"; any other answer takes a click (or Tab, then Enter).`;
  return {
    message: approval ? 'surehand wants to run a command' : 'surehand asks',
    detail: `${visible(message, '\n')}\n\n${help}`,
    order,
    refusal,
  };
}
