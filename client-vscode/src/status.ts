/** The status bar item: idle, working (the current step), waiting for review. */

import * as vscode from 'vscode';
import type { Pending } from './review/decide';
import { statusText, stepText, type StatusState, type StepParams } from './statusText';

export class Status implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('surehand.status', vscode.StatusBarAlignment.Left, 10);
  private state: StatusState = { server: 'starting' };
  private question: { after: string | undefined } | undefined;

  constructor() {
    this.item.name = 'surehand';
    this.render();
    this.item.show();
  }

  server(server: StatusState['server'], reason?: string): void {
    this.set({ server, reason, working: server === 'running' ? this.state.working : undefined });
  }

  /** A task runs (`step` says what it does now), or none does (undefined). */
  working(step: string | undefined): void {
    if (step === undefined) {
      this.question = undefined;
      this.set({ working: undefined });
    } else if (this.question === undefined) {
      this.set({ working: step });
    } else {
      this.question.after = step; // shown once the question is answered
    }
  }

  /** A `surehand/step` notification: shown while a task runs. */
  step(params: StepParams): void {
    const text = stepText(params);
    if (text !== undefined && this.state.working !== undefined) {
      this.working(text);
    }
  }

  /**
   * A question to the user is open (`waiting` says what waits for it), or
   * it was answered (undefined): meanwhile the status says what waits, not
   * the step reports (a command that waits for approval does not run yet).
   */
  asking(waiting: string | undefined): void {
    if (waiting !== undefined) {
      this.question = { after: this.state.working };
      this.set({ working: waiting });
      return;
    }
    const after = this.question?.after;
    this.question = undefined;
    if (this.state.working !== undefined) {
      this.set({ working: after ?? 'working' });
    }
  }

  /** The decisions left in the review, or no review (undefined). */
  reviewing(pending: Pending | undefined): void {
    this.set({ reviewing: pending });
    void vscode.commands.executeCommand('setContext', 'surehand.reviewing', pending !== undefined);
  }

  dispose(): void {
    this.item.dispose();
  }

  private set(change: Partial<StatusState>): void {
    this.state = { ...this.state, ...change };
    this.render();
  }

  private render(): void {
    const { text, tooltip, command } = statusText(this.state);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.command = command;
  }
}
