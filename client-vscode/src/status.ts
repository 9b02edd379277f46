/** The status bar item: idle, working (the current step), waiting for review. */

import * as vscode from 'vscode';
import { statusText, stepText, type StatusState, type StepParams } from './statusText';

export class Status implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('surehand.status', vscode.StatusBarAlignment.Left, 10);
  private state: StatusState = { server: 'starting' };

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
    this.set({ working: step });
  }

  /** A `surehand/step` notification: shown while a task runs. */
  step(params: StepParams): void {
    const text = stepText(params);
    if (text !== undefined && this.state.working !== undefined) {
      this.set({ working: text });
    }
  }

  /** `pending` decisions left in the review, or no review (undefined). */
  reviewing(pending: number | undefined): void {
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
