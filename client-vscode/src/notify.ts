/** Telling the user something, with the way to the trace when it went wrong. */

import * as vscode from 'vscode';
import type { Message } from './ask';

const SHOW_TRACE = 'Show Trace';

/** Show `message`; a warning or an error offers "Show Trace", which opens `output`. */
export async function tell(output: vscode.OutputChannel, message: Message): Promise<void> {
  const shown =
    message.severity === 'info'
      ? vscode.window.showInformationMessage(message.text)
      : message.severity === 'warning'
        ? vscode.window.showWarningMessage(message.text, SHOW_TRACE)
        : vscode.window.showErrorMessage(message.text, SHOW_TRACE);
  if ((await shown) === SHOW_TRACE) {
    output.show(true);
  }
}
