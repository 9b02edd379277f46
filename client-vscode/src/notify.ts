/** Telling the user something, with the way to the trace when it went wrong. */

import * as vscode from 'vscode';
import type { Message } from './ask';
import { mapSetupMessage } from './fixes';
import type { Tally } from './review/decide';
import { visibleNotice } from './visible';

const SHOW_TRACE = 'Show Trace';
const RECENT_MS = 30_000;

/**
 * Show `message`; a warning or an error offers the buttons that fix it
 * (the server's setup errors in VS Code's words, `fixes.ts`), then "Show
 * Trace", which opens `output`. (VS Code keeps a notification with actions
 * until it is dismissed, and hides one without after a while: only good
 * news hides.)
 */
export async function tell(output: vscode.OutputChannel, message: Message): Promise<void> {
  if (message.severity === 'info') {
    await vscode.window.showInformationMessage(visibleNotice(message.text)); // it may carry a model's words
    return;
  }
  const mapped = mapSetupMessage(message.text);
  const text = visibleNotice(mapped.text);
  const titles = [...mapped.fixes.map((f) => f.title), SHOW_TRACE];
  const shown =
    message.severity === 'warning' ? vscode.window.showWarningMessage(text, ...titles) : vscode.window.showErrorMessage(text, ...titles);
  const choice = await shown;
  const fix = mapped.fixes.find((f) => f.title === choice);
  if (fix !== undefined) {
    await vscode.commands.executeCommand(fix.command, ...(fix.args ?? []));
  } else if (choice === SHOW_TRACE) {
    output.show(true);
  }
}

/**
 * The server's `window/showMessage` and the tasks' results, told once: an
 * error the server already showed (a model error, say) is not repeated by
 * the task's result that carries the same words.
 */
export class Notices {
  private recent: { text: string; at: number }[] = [];
  /** What the current task's reviews did (set by the extension), for its final message. */
  tally: () => Tally | undefined = () => undefined;

  constructor(readonly output: vscode.OutputChannel) {}

  /** A `window/showMessage` from the server. */
  server(severity: Message['severity'], text: string): void {
    this.recent = [...this.recent.filter((r) => Date.now() - r.at < RECENT_MS), { text, at: Date.now() }];
    void tell(this.output, { severity, text });
  }

  /** A task's result; `summary` is what the server may have shown already. */
  async tellResult(message: Message, summary: string | undefined): Promise<void> {
    const said = summary?.trim();
    if (message.severity !== 'info' && said && this.recent.some((r) => Date.now() - r.at < RECENT_MS && r.text.includes(said))) {
      return;
    }
    await tell(this.output, message);
  }
}
