/**
 * Read-only documents under the `surehand-proposal:` scheme: a new file's
 * proposed content (shown for review), a file's text with the proposal in
 * (the right side of "Show Diff"), the text now (its left side) and the
 * empty text (the other side for new and deleted files). Each keeps the
 * real file's path, so it gets the same language.
 */

import * as vscode from 'vscode';

export const SCHEME = 'surehand-proposal';

/** `new`: a new file under review; `proposed`: the text with the proposal in; `current`: the text now; `empty`: nothing. */
export type ProposalView = 'new' | 'proposed' | 'current' | 'empty';

export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);

  /** Set what `target` shows as `view`, and return the URI that shows it. */
  set(target: vscode.Uri, view: ProposalView, text: string): vscode.Uri {
    const uri = target.with({ scheme: SCHEME, query: view });
    if (this.contents.get(uri.toString()) !== text) {
      this.contents.set(uri.toString(), text);
      this.changed.fire(uri);
    }
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  clear(): void {
    this.contents.clear();
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
