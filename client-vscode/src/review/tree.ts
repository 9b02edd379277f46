/**
 * The "Surehand: Changes" view (in the Explorer, while a proposal is under
 * review): files and their hunks with their state; picking one puts it in
 * the editor, with the cursor on it, so the review keys act on it. A new
 * review expands it, without the focus, unless `surehand.review.showChanges`
 * is off. When the proposal carries the tests' verdict, the view's title
 * has its headline and a row above the files says what ran, on what and how
 * contained, its tooltip the verdict's sentence, the failing tests under it
 * (`testNodes.ts`).
 */

import * as vscode from 'vscode';
import { childNodes, fileNodes, type ChangeNode, type NodeState } from './changes';
import type { ReviewController } from './controller';
import { findTestNode, testNodes, testParent, type TestNode } from './testNodes';
import { headlineLabel, type VerdictStatus } from '../verdicts';

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

const TEST_ICONS: Record<VerdictStatus, vscode.ThemeIcon> = {
  passed: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconErrored')),
  stale: new vscode.ThemeIcon('history', new vscode.ThemeColor('editorWarning.foreground')),
  not_run: new vscode.ThemeIcon('circle-slash'),
};

type Node = ChangeNode | TestNode;

const isTestNode = (node: Node): node is TestNode => node.kind === 'tests' || node.kind === 'verdict' || node.kind === 'failing';

export class ChangesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  private readonly view: vscode.TreeView<Node>;
  private shown: unknown;

  constructor(private readonly controller: ReviewController) {
    this.view = vscode.window.createTreeView(VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions = [
      this.view,
      controller.onDidChange((review) => {
        this.header();
        this.changed.fire();
        if (review !== undefined && review !== this.shown) {
          this.shown = review;
          void this.showFirst();
        }
      }),
    ];
  }

  /** The headline of the tests' verdict on the proposal, by the view's title. */
  private header(): void {
    const tests = this.controller.review?.tests;
    this.view.description = tests === undefined || tests.verdicts.length === 0 ? undefined : headlineLabel(tests);
  }

  /** A new review: expand the view on its first file, without taking the focus (`surehand.review.showChanges`). */
  private async showFirst(): Promise<void> {
    const first = this.getChildren().find((node) => !isTestNode(node));
    if (first === undefined || !vscode.workspace.getConfiguration('surehand').get<boolean>('review.showChanges', true)) {
      return;
    }
    try {
      await this.view.reveal(first, { select: false, focus: false, expand: true });
    } catch {
      // the view is not shown in this window's layout
    }
  }

  getParent(node: Node): Node | undefined {
    if (isTestNode(node)) {
      return testParent(this.testNodes(), node.id);
    }
    return node.kind === 'file' ? undefined : this.getChildren().find((f) => !isTestNode(f) && f.file === node.file);
  }

  getChildren(node?: Node): Node[] {
    const review = this.controller.review;
    if (review === undefined) {
      return [];
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
    if (node === undefined) {
      return [...this.testNodes(), ...fileNodes(review.proposal, root)];
    }
    if (isTestNode(node)) {
      return [...(findTestNode(this.testNodes(), node.id)?.children ?? [])];
    }
    const file = review.proposal.files[node.file];
    return node.kind === 'file' && file !== undefined ? childNodes(file, root) : [];
  }

  private testNodes(): TestNode[] {
    const tests = this.controller.review?.tests;
    return tests === undefined ? [] : testNodes(tests);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (isTestNode(node)) {
      return testItem(node);
    }
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

function testItem(node: TestNode): vscode.TreeItem {
  const collapsible =
    node.children.length === 0
      ? vscode.TreeItemCollapsibleState.None
      : node.open
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
  const item = new vscode.TreeItem(node.label, collapsible);
  item.id = node.id;
  item.description = node.description;
  item.tooltip = node.tooltip;
  item.iconPath = TEST_ICONS[node.status];
  item.contextValue = `surehand.${node.kind}.${node.status}`;
  return item;
}
