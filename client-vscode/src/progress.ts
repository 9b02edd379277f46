/**
 * The server's work-done progress as a notification with a Cancel button.
 *
 * vscode-languageclient 9 shows server progress in the status bar
 * (`ProgressLocation.Window`), where VS Code draws no cancel button. This
 * middleware shows it as a notification instead ("surehand: <task>", the
 * message following each step); Cancel sends
 * `window/workDoneProgress/cancel`, which stops the task. The status bar
 * item follows the same reports.
 */

import * as vscode from 'vscode';
import {
  WorkDoneProgressCancelNotification,
  type BaseLanguageClient,
  type Middleware,
  type ProgressToken,
} from 'vscode-languageclient/node';
import type { Status } from './status';

type Progress = vscode.Progress<{ message?: string }>;

/** One notification, from `begin` to `end`. */
class Bar {
  private progress: Progress | undefined;
  private message: string | undefined;
  private finish: (() => void) | undefined;
  private ended = false;

  constructor(title: string, cancellable: boolean, message: string | undefined, onCancel: () => void) {
    this.message = message;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable },
      (progress, token) => {
        token.onCancellationRequested(onCancel);
        this.progress = progress;
        if (this.message !== undefined) {
          progress.report({ message: this.message });
        }
        return new Promise<void>((resolve) => {
          this.finish = resolve;
          if (this.ended) {
            resolve();
          }
        });
      },
    );
  }

  report(message: string): void {
    this.message = message;
    this.progress?.report({ message });
  }

  end(): void {
    this.ended = true;
    this.finish?.();
  }
}

export function progressMiddleware(
  client: () => BaseLanguageClient | undefined,
  status: Status,
): NonNullable<Middleware['handleWorkDoneProgress']> {
  const bars = new Map<ProgressToken, Bar>();
  return (token, params, next) => {
    if (params.kind === 'begin') {
      const cancel = (): void => {
        void client()?.sendNotification(WorkDoneProgressCancelNotification.type, { token });
      };
      bars.get(token)?.end();
      bars.set(token, new Bar(params.title, params.cancellable ?? false, params.message, cancel));
      status.working(params.message ?? params.title);
    } else if (params.kind === 'report') {
      if (params.message !== undefined) {
        bars.get(token)?.report(params.message);
        status.working(params.message);
      }
    } else {
      bars.get(token)?.end();
      bars.delete(token);
      status.working(undefined);
      next(token, params); // lets the client forget the token
    }
  };
}
