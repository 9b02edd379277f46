/**
 * What to say when the language server goes away. Free of the `vscode` module.
 */

export interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
}

/** What the server was doing when it stopped. */
export type Doing = 'task' | 'review' | 'idle';

/** The message for a server that stopped on its own (not stopped by the extension). */
export function crashText(exit: Exit | undefined, doing: Doing): string {
  const how =
    exit === undefined
      ? 'stopped'
      : exit.signal !== null
        ? `was killed (${exit.signal})`
        : `exited with code ${exit.code ?? 'unknown'}`;
  const lost =
    doing === 'task'
      ? ' The task was stopped and the conversation is lost.'
      : doing === 'review'
        ? ' The proposal stays under review: what you accept is still applied to your buffers.'
        : ' The conversation is lost.';
  return `surehand: the language server ${how}.${lost}`;
}

/** Whether a request failed only because the connection to the server went away (the crash report says the rest). */
export function isConnectionLoss(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /connection got disposed|connection is (closed|disposed)|connection.*(ended|closed)/i.test(message);
}
