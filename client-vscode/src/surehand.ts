/**
 * The extension's parts, put together: output channel, status bar item,
 * inline review, language client, commands and the settings that restart
 * the server.
 */

import * as vscode from 'vscode';
import { ApplyWorkspaceEditRequest, type LanguageClient, type Middleware } from 'vscode-languageclient/node';
import { registerCommands, reportingAsks } from './commands';
import { progressMiddleware } from './progress';
import { registerReviewCommands } from './review/commands';
import { ReviewController } from './review/controller';
import { ProposalDocuments } from './review/documents';
import { ReviewLenses } from './review/lenses';
import { REVIEWED_NOTIFICATION } from './review/protocol';
import { ReviewView } from './review/view';
import { API_KEY_SECRET, ServerManager } from './server';
import { RESTART_SETTINGS, SECTION, serverSettings } from './settings';
import { Status } from './status';
import type { StepParams } from './statusText';

const STEP_NOTIFICATION = 'surehand/step';

export class Surehand implements vscode.Disposable {
  private readonly output = vscode.window.createOutputChannel('surehand');
  private readonly status = new Status();
  private readonly documents = new ProposalDocuments();
  private readonly review = new ReviewController(this.documents, this.status, this.output);
  private readonly server: ServerManager;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext) {
    const middleware: Middleware = {
      handleWorkDoneProgress: progressMiddleware(() => this.server.client, this.status),
      executeCommand: reportingAsks(this.output),
      workspace: {
        // The server gets only its own keys, and only those with a value.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return result.map((value, i) => (params.items[i]?.section === SECTION ? serverSettings(value) : value));
        },
      },
    };
    this.server = new ServerManager(context, this.output, this.status, {
      middleware,
      attach: (client) => this.attach(client),
      detach: () => {
        this.review.notify = undefined;
        this.review.abort();
      },
    });
    this.disposables.push(
      new ReviewView(this.review),
      new ReviewLenses(this.review),
      ...registerReviewCommands(this.review, this.documents),
      ...registerCommands({
        context,
        server: this.server,
        review: this.review,
        status: this.status,
        output: this.output,
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (RESTART_SETTINGS.some((setting) => event.affectsConfiguration(setting))) {
          this.server.restart();
        }
      }),
      context.secrets.onDidChange((event) => event.key === API_KEY_SECRET && this.server.restart()),
    );
  }

  start(): Promise<void> {
    return this.server.start();
  }

  async dispose(): Promise<void> {
    await this.server.dispose();
    this.disposables.forEach((d) => d.dispose());
    this.review.dispose();
    this.documents.dispose();
    this.status.dispose();
    this.output.dispose();
  }

  private attach(client: LanguageClient): void {
    client.onRequest(ApplyWorkspaceEditRequest.type, (params) => this.review.handleApplyEdit(params));
    client.onNotification(STEP_NOTIFICATION, (params: StepParams) => this.status.step(params));
    this.review.notify = (hunks) => void client.sendNotification(REVIEWED_NOTIFICATION, { hunks });
  }
}
