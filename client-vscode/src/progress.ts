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
import { visible } from './visible';

type Progress = vscode.Progress<{ message?: string }>;

/** One notification, from `begin` to `end`. */
class Bar {
  private progress: Progress | undefined;
  private message: string | undefined;
  private finish: (() => void) | undefined;
  private ended = false;
  private held: string | undefined;

  constructor(title: string, cancellable: boolean, message: string | undefined, onCancel: () => void) {
    this.message = message === undefined ? undefined : visible(message);
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: visible(title), cancellable },
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
    this.message = visible(message);
    if (this.held === undefined) {
      this.progress?.report({ message });
    }
  }

  /** Show `waiting` instead of the reports until called with undefined. */
  hold(waiting: string | undefined): void {
    this.held = waiting === undefined ? undefined : visible(waiting);
    const shown = this.held ?? this.message;
    if (shown !== undefined) {
      this.progress?.report({ message: shown });
    }
  }

  end(): void {
    this.ended = true;
    this.finish?.();
  }
}

/**
 * Every notification the server's progress opened, by token. `endAll` closes
 * them when the server goes away (its `end` would never come); `asking`
 * words them while a question to the user is open.
 */
export class ProgressBars {
  private readonly bars = new Map<ProgressToken, Bar>();

  constructor(
    private readonly client: () => BaseLanguageClient | undefined,
    private readonly status: Status,
    /** A task's progress begins: a new task. */
    private readonly onTask: () => void = () => undefined,
  ) {}

  readonly middleware: NonNullable<Middleware['handleWorkDoneProgress']> = (token, params, next) => {
    if (params.kind === 'begin') {
      const cancel = (): void => {
        void this.client()?.sendNotification(WorkDoneProgressCancelNotification.type, { token });
      };
      this.onTask();
      this.bars.get(token)?.end();
      this.bars.set(token, new Bar(params.title, params.cancellable ?? false, params.message, cancel));
      this.status.working(params.message ?? params.title);
    } else if (params.kind === 'report') {
      if (params.message !== undefined) {
        this.bars.get(token)?.report(params.message);
        this.status.working(params.message);
      }
    } else {
      this.bars.get(token)?.end();
      this.bars.delete(token);
      this.status.working(undefined);
      next(token, params); // lets the client forget the token
    }
  };

  /** Whether a task's progress is shown. */
  get active(): boolean {
    return this.bars.size > 0;
  }

  /** A question to the user is open (`waiting` says what waits), or was answered (undefined). */
  asking(waiting: string | undefined): void {
    this.bars.forEach((bar) => bar.hold(waiting));
  }

  /** Close every notification and end the work in the status: the server is gone. */
  endAll(): void {
    this.bars.forEach((bar) => bar.end());
    this.bars.clear();
    this.status.working(undefined);
  }
}
