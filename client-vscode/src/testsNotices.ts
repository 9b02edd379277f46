/**
 * The tests' verdicts the server sends (`surehand/tests`, docs/protocol.md)
 * and the check of what the person accepted (`surehand.checkTests`).
 *
 * - `on: "proposal"`: comes right before the proposal; its review shows it
 *   (`review/tree.ts`).
 * - `on: "accepted"`, after a review that left hunks out: `running` shows a
 *   progress notification; `done` tells the verdict (a warning when a test
 *   failed) while the accepted hunks still sit unsaved in the buffers;
 *   `offered` asks whether to run that check, with a button that runs it.
 *
 * The palette's "Surehand: Run Tests on What You Accepted" is the server's
 * own `surehand.checkTests` (the language client registers it); the
 * middleware here tells its result when no `surehand/tests` did (a refusal:
 * a task runs, there is no proposal).
 */

import * as vscode from 'vscode';
import { ExecuteCommandRequest, type LanguageClient, type Middleware } from 'vscode-languageclient/node';
import type { ReviewController } from './review/controller';
import {
  acceptedNotice,
  CHECK_TESTS,
  offerNotice,
  readCheckResult,
  readTests,
  RUN_ON_ACCEPTED,
  RUNNING_TITLE,
  type Notice,
  type TestsParams,
} from './verdicts';
import { visibleNotice } from './visible';

export class TestsNotices implements vscode.Disposable {
  /** Ends the progress of a check of what was accepted, while one runs. */
  private running: (() => void) | undefined;
  /** How many checks of what was accepted the server told the end of. */
  private told = 0;

  constructor(
    private readonly review: ReviewController,
    /** A server running with the current settings (started or restarted when need be). */
    private readonly ready: () => Promise<LanguageClient | undefined>,
    private readonly output: vscode.OutputChannel,
  ) {}

  /** A `surehand/tests` notification. */
  handle(params: unknown): void {
    const tests = readTests(params);
    if (tests === undefined) {
      this.output.appendLine(`Tests: a notification this extension does not read: ${JSON.stringify(params)}`);
      return;
    }
    this.output.appendLine(`Tests (${tests.on}, ${tests.state}): ${tests.summary || tests.headline || 'none'}`);
    if (tests.on === 'proposal') {
      this.review.proposalTests(tests);
      return;
    }
    this.accepted(tests);
  }

  private accepted(tests: TestsParams): void {
    this.endProgress();
    if (tests.state === 'running') {
      this.showProgress();
    } else if (tests.state === 'done') {
      this.told += 1;
      void show(acceptedNotice(tests));
    } else {
      void this.offer(tests);
    }
  }

  /** A progress notification until `endProgress` (which may come before VS Code has started it). */
  private showProgress(): void {
    let finish: (() => void) | undefined;
    let ended = false;
    this.running = () => {
      ended = true;
      finish?.();
    };
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: RUNNING_TITLE, cancellable: false },
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
          if (ended) {
            resolve();
          }
        }),
    );
  }

  private endProgress(): void {
    this.running?.();
    this.running = undefined;
  }

  private async offer(tests: TestsParams): Promise<void> {
    const notice = offerNotice(tests);
    if ((await vscode.window.showInformationMessage(notice.text, RUN_ON_ACCEPTED)) === RUN_ON_ACCEPTED) {
      await this.check(async () => {
        const client = await this.ready();
        if (client === undefined) {
          throw new Error('the language server is not running');
        }
        return client.sendRequest(ExecuteCommandRequest.type, { command: CHECK_TESTS, arguments: [] });
      });
    }
  }

  /** Run a check of what was accepted with `send`; tell its result unless the server's notification did. */
  private async check(send: () => Promise<unknown>): Promise<unknown> {
    const before = this.told;
    let result: unknown;
    try {
      result = await send();
    } catch (error) {
      this.endProgress();
      this.output.appendLine(`${CHECK_TESTS}: ${String(error)}`);
      void vscode.window.showErrorMessage(visibleNotice(`surehand: the tests could not be run on what you accepted: ${String(error)}`));
      return undefined;
    }
    this.output.appendLine(`${CHECK_TESTS}: ${JSON.stringify(result)}`);
    this.endProgress();
    if (this.told === before) {
      void show(acceptedNotice(readCheckResult(result)));
    }
    return result;
  }

  /** Middleware: the server's `surehand.checkTests`, run from the palette, tells its result. */
  middleware(next: NonNullable<Middleware['executeCommand']>): NonNullable<Middleware['executeCommand']> {
    return async (command, args, send) => {
      if (command !== CHECK_TESTS) {
        return (await next(command, args, send)) as unknown;
      }
      return this.check(async () => (await send(command, args)) as unknown);
    };
  }

  /** The server went away: a check it ran is over. */
  detach(): void {
    this.endProgress();
  }

  dispose(): void {
    this.endProgress();
  }
}

function show(notice: Notice): Thenable<unknown> {
  return notice.severity === 'warning' ? vscode.window.showWarningMessage(notice.text) : vscode.window.showInformationMessage(notice.text);
}
