/**
 * The extension's parts, put together: output channel, status bar item,
 * inline review and its Changes view, language client, commands and the
 * settings that restart the server.
 */

import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest,
  MessageType,
  ShowMessageNotification,
  ShowMessageRequest,
  type LanguageClient,
  type MessageActionItem,
  type Middleware,
  type ResponseError,
} from 'vscode-languageclient/node';
import { approvalStep, questionDialog } from './approval';
import { registerCommands, reportingAsks } from './commands';
import { crashText, type Exit } from './crash';
import { isKeyOf } from './endpoint';
import { Notices } from './notify';
import { OutsideEdits } from './outsideEdits';
import { ProgressBars } from './progress';
import { registerReviewCommands } from './review/commands';
import { ReviewController } from './review/controller';
import { ProposalDocuments } from './review/documents';
import { ReviewLenses } from './review/lenses';
import { REVIEWED_NOTIFICATION } from './review/protocol';
import { ChangesView } from './review/tree';
import { ReviewView } from './review/view';
import { ServerManager } from './server';
import { pinnedSettings, RESTART_SETTINGS, SECTION, SERVER_KEYS, splitSettings } from './settings';
import { Status } from './status';
import { TestsNotices } from './testsNotices';
import { confirmingUndo, registerUndoCommands, type UndoParts } from './undoCommands';
import { UndoEdits } from './undoEdit';
import { visible, visibleNotice } from './visible';
import type { StepParams } from './statusText';
import { TESTS_NOTIFICATION } from './verdicts';

const STEP_NOTIFICATION = 'surehand/step';
const SHOW_TRACE = 'Show Trace';
const RESTART = 'Restart';

export class Surehand implements vscode.Disposable {
  private readonly output = vscode.window.createOutputChannel('surehand');
  private readonly notices = new Notices(this.output);
  private readonly status = new Status();
  private readonly documents = new ProposalDocuments();
  private readonly review = new ReviewController(this.documents, this.status, this.output);
  private readonly undoEdits = new UndoEdits(this.output);
  private readonly progress: ProgressBars;
  private readonly server: ServerManager;
  private readonly tests = new TestsNotices(this.review, () => this.server.ready(), this.output);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext) {
    this.progress = new ProgressBars(() => this.server.client, this.status, () => this.review.newTask());
    this.notices.tally = () => this.review.taskTally();
    const middleware: Middleware = {
      handleWorkDoneProgress: this.progress.middleware,
      executeCommand: confirmingUndo(
        () => this.undoParts(),
        this.tests.middleware(
          reportingAsks(() => ({ secrets: context.secrets, server: this.server, output: this.output }), this.notices),
        ),
      ),
      workspace: {
        // The server gets only its own keys, with a value, and the endpoint it was started for.
        configuration: async (params, token, next) => {
          const result: unknown[] | ResponseError<void> = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          // The workspace's own settings (a repository can commit them) go apart from the user's.
          const split = splitSettings((key) => vscode.workspace.getConfiguration(SECTION).inspect(key));
          this.output.appendLine(`The server read its settings (model ${JSON.stringify(split.model ?? null)}).`);
          return result.map((value, i) =>
            params.items[i]?.section === SECTION ? pinnedSettings(split, this.server.baseUrl) : value,
          );
        },
      },
    };
    this.server = new ServerManager(context, this.output, this.status, {
      middleware,
      attach: (client) => this.attach(client),
      detach: () => {
        this.review.notify = undefined;
        this.review.abort();
        this.progress.endAll();
        this.tests.detach();
      },
      crashed: (exit) => this.crashed(exit),
    });
    this.disposables.push(
      this.tests,
      new OutsideEdits(context.globalStorageUri, (line) => this.output.appendLine(line)),
      new ReviewView(this.review),
      new ReviewLenses(this.review),
      new ChangesView(this.review),
      ...registerReviewCommands(this.review, this.documents),
      ...registerCommands({
        context,
        server: this.server,
        review: this.review,
        status: this.status,
        output: this.output,
        notices: this.notices,
      }),
      ...registerUndoCommands(this.undoParts()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        const changed = [...SERVER_KEYS, 'python'].filter((key) => event.affectsConfiguration(`${SECTION}.${key}`));
        if (changed.length > 0) {
          this.output.appendLine(`Settings changed: ${changed.map((key) => `${SECTION}.${key}`).join(', ')}.`);
        }
        if (RESTART_SETTINGS.some((setting) => event.affectsConfiguration(setting))) {
          this.server.restart();
        }
      }),
      context.secrets.onDidChange((event) => {
        if (isKeyOf(event.key, this.server.configuredBaseUrl())) {
          this.server.restart();
        }
      }),
    );
  }

  private undoParts(): UndoParts {
    return { server: this.server, review: this.review, output: this.output, edits: this.undoEdits };
  }

  start(): Promise<void> {
    return this.server.start();
  }

  async dispose(): Promise<void> {
    await this.server.dispose();
    this.disposables.forEach((d) => {
      d.dispose();
    });
    this.review.dispose();
    this.documents.dispose();
    this.status.dispose();
    this.output.dispose();
  }

  private attach(client: LanguageClient): void {
    client.onRequest(ApplyWorkspaceEditRequest.type, (params) =>
      this.undoEdits.claims(params) ? this.undoEdits.apply(params) : this.review.handleApplyEdit(params),
    );
    client.onRequest(ShowMessageRequest.type, (params) => this.question(params.type, params.message, params.actions));
    client.onNotification(ShowMessageNotification.type, (params) =>
      this.notices.server(severityOf(params.type), params.message),
    );
    client.onNotification(STEP_NOTIFICATION, (params: StepParams) => this.status.step(params));
    client.onNotification(TESTS_NOTIFICATION, (params: unknown) => this.tests.handle(params));
    this.review.notify = (hunks) => void client.sendNotification(REVIEWED_NOTIFICATION, { hunks });
  }

  /** The server's question (a command's approval, say): while it is open, the status and progress say what waits. */
  private async question(
    type: MessageType,
    message: string,
    actions: MessageActionItem[] | undefined,
  ): Promise<MessageActionItem | null> {
    const waiting = approvalStep(message);
    if (waiting !== undefined) {
      this.status.asking(waiting);
      this.progress.asking(waiting);
    }
    try {
      const items = actions ?? [];
      const show =
        type === MessageType.Error
          ? vscode.window.showErrorMessage
          : type === MessageType.Warning
            ? vscode.window.showWarningMessage
            : vscode.window.showInformationMessage;
      if (items.length === 0) {
        await show(visibleNotice(message));
        return null;
      }
      // Modal: it stays until answered; Enter and Escape give the refusal, "always" is never first.
      const dialog = questionDialog(message, items.map((i) => i.title));
      const buttons = dialog.order.map((title) => ({ title: visible(title) }));
      const chosen = await show(dialog.message, { modal: true, detail: dialog.detail }, ...buttons);
      const title = chosen === undefined ? dialog.refusal : dialog.order[buttons.indexOf(chosen)];
      return items.find((i) => i.title === title) ?? null;
    } finally {
      if (waiting !== undefined) {
        this.status.asking(undefined);
        this.progress.asking(undefined);
      }
    }
  }

  /** The server stopped on its own: end its progress, keep the review, say what happened and offer a restart. */
  private crashed(exit: Exit | undefined): void {
    const doing = this.review.review !== undefined ? 'review' : this.progress.active ? 'task' : 'idle';
    this.progress.endAll();
    this.tests.detach();
    this.review.notify = undefined;
    this.review.orphan();
    const text = crashText(exit, doing);
    this.output.appendLine(text);
    void vscode.window.showErrorMessage(text, SHOW_TRACE, RESTART).then((choice) => {
      if (choice === SHOW_TRACE) {
        this.output.show(true);
      } else if (choice === RESTART) {
        void this.server.restartNow();
      }
    });
  }
}

function severityOf(type: MessageType): 'info' | 'warning' | 'error' {
  return type === MessageType.Error ? 'error' : type === MessageType.Warning ? 'warning' : 'info';
}
