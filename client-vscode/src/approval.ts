/**
 * The server's command approvals (`window/showMessageRequest`). Free of the
 * `vscode` module.
 *
 * The server reports "Running <command>" when the model calls the tool, and
 * asks before it runs anything outside its allowlist: while that question
 * is open, the status and the progress say the command waits for approval,
 * not that it runs.
 */

/** "waiting for your approval: rm -rf build" for the server's approval question, else undefined. */
export function approvalStep(message: string): string | undefined {
  const match = /wants to run `([^`]*)`/.exec(message);
  if (match === null) {
    return undefined;
  }
  return `waiting for your approval: ${match[1]}`;
}
