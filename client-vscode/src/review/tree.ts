/**
 * The "Surehand: Changes" view (in the Explorer, while a proposal is under
 * review): files and their hunks with their state; picking one puts it in
 * the editor, with the cursor on it, so the review keys act on it. A new
 * review expands it, without the focus, unless `surehand.review.showChanges`
 * is off.
 */

import * as vscode from 'vscode';
import { childNodes, fileNodes, type ChangeNode, type NodeState } from './changes';
import type { ReviewController } from './controller';

export const VIEW = 'surehand.changes';
const REVEAL = 'surehand.review.reveal';

const ICONS: Record<NodeState, vscode.ThemeIcon> = {
  pending: new vscode.ThemeIcon('circle-large-outline'),
  accepted: new vscode.ThemeIcon('check', new vscode.ThemeColor('testing.iconPassed')),
  rejected: new vscode.ThemeIcon('close', new vscode.ThemeColor('testing.iconFailed')),
  stale: new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground')),
  partly: new vscode.ThemeIcon('pass'),
};

const GOVERNS_ICON = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));

export class ChangesView implements vscode.TreeDataProvider<ChangeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  private readonly view: vscode.TreeView<ChangeNode>;
  private shown: unknown;

  constructor(private readonly controller: ReviewController) {
    this.view = vscode.window.createTreeView(VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions = [
      this.view,
      controller.onDidChange((review) => {
        this.changed.fire();
        if (review !== undefined && review !== this.shown) {
          this.shown = review;
          void this.showFirst();
        }
      }),
    ];
  }

  /** A new review: expand the view on its first file, without taking the focus (`surehand.review.showChanges`). */
  private async showFirst(): Promise<void> {
    const first = this.getChildren()[0];
    if (first === undefined || !vscode.workspace.getConfiguration('surehand').get<boolean>('review.showChanges', true)) {
      return;
    }
    try {
      await this.view.reveal(first, { select: false, focus: false, expand: true });
    } catch {
      // the view is not shown in this window's layout
    }
  }

  getParent(node: ChangeNode): ChangeNode | undefined {
    return node.kind === 'file' ? undefined : this.getChildren().find((f) => f.file === node.file);
  }

  getChildren(node?: ChangeNode): ChangeNode[] {
    const review = this.controller.review;
    if (review === undefined) {
      return [];
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
    if (node === undefined) {
      return fileNodes(review.proposal, root);
    }
    const file = review.proposal.files[node.file];
    return node.kind === 'file' && file !== undefined ? childNodes(file, root) : [];
  }

  getTreeItem(node: ChangeNode): vscode.TreeItem {
    const collapsible = node.kind === 'file' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, collapsible);
    item.id = `${node.kind}:${node.file}:${node.hunk ?? ''}`;
    item.description = node.description;
    item.tooltip = `${node.label} — ${node.description}`;
    // A pending change to a file that changes how tools run carries the warning icon.
    item.iconPath = node.governs !== undefined && node.state === 'pending' ? GOVERNS_ICON : ICONS[node.state];
    item.contextValue = `surehand.${node.kind}.${node.state}`;
    item.command = { title: 'Show', command: REVEAL, arguments: [node.file, node.hunk] };
    return item;
  }

  dispose(): void {
    this.subscriptions.forEach((s) => {
      s.dispose();
    });
    this.changed.dispose();
  }
}
