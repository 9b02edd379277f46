/**
 * How a proposal looks in the editor, without touching the buffer:
 *
 * - lines a hunk removes: a red whole-line background (the diff editor's
 *   "removed line" colour) with a red mark in the overview ruler;
 * - lines a hunk adds: a read-only comment thread right under the lines
 *   they replace (or under the line they follow), labelled
 *   "surehand: <label>", holding the new lines as a ```diff block with
 *   "+" before each; the thread is an inline block, so multi-line additions
 *   show as lines, between the editor's own lines;
 * - a stale hunk (the user typed in it): its lines outlined, dashed, in the
 *   warning colour, and the thread's label starts with "stale";
 * - a new file: its proposed content in a read-only `surehand-proposal:`
 *   document, every line green; a file to delete: every line red;
 * - in the lines the review colours (what a hunk replaces, a new or deleted
 *   file), every hidden character (`visible.ts`: a control, a bidi
 *   override, a zero-width character) carries its escape (`\x1b`,
 *   `\u202e`), boxed in red, before it, whatever the editor's own settings
 *   for showing them.
 *
 * The CodeLenses above each hunk (`lenses.ts`) carry the decisions.
 */

import * as vscode from 'vscode';
import type { Review, ReviewController } from './controller';
import { addedBlock, hunkLayout, hunkSummary } from './layout';
import type { FileReview, Hunk } from './model';
import { governsWords } from './lensText';
import { lineStarts } from './text';
import { hiddenSpans, visible } from '../visible';

const COMMENT_CONTROLLER = 'surehand-review';

export class ReviewView implements vscode.Disposable {
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly stale = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    border: '1px dashed',
    borderColor: new vscode.ThemeColor('editorWarning.foreground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.warningForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly hidden = vscode.window.createTextEditorDecorationType({});
  private readonly comments = vscode.comments.createCommentController(COMMENT_CONTROLLER, 'surehand proposals');
  private readonly threads = new Map<string, vscode.CommentThread>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(controller: ReviewController) {
    this.subscriptions = [
      controller.onDidChange((review) => this.render(review)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.render(controller.review)),
    ];
  }

  dispose(): void {
    this.subscriptions.forEach((s) => {
      s.dispose();
    });
    this.threads.forEach((t) => t.dispose());
    this.comments.dispose();
    this.removed.dispose();
    this.added.dispose();
    this.stale.dispose();
    this.hidden.dispose();
  }

  /**
   * Decorations for every visible editor, and one thread per hunk that adds
   * lines and is not rejected. A thread is made when its document first
   * shows in an editor (in VS Code 1.100 one made for a document no editor
   * shows lands on the wrong line) and then kept, moved and relabelled, for
   * the whole review: made anew each time its editor shows again, it does
   * not show in an editor that opens while it is made (the first file of a
   * proposal showed no added lines until its tab was left and re-entered).
   */
  private render(review: Review | undefined): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const lines: Lines = { removed: [], added: [], stale: [] };
      for (const file of review?.filesShownOn(editor.document.uri) ?? []) {
        drawLines(editor.document, file, lines);
      }
      editor.setDecorations(this.removed, lines.removed);
      editor.setDecorations(this.added, lines.added);
      editor.setDecorations(this.stale, lines.stale);
      editor.setDecorations(this.hidden, hiddenMarks(editor.document, [...lines.removed, ...lines.added, ...lines.stale]));
    }
    const wanted = new Map<string, ThreadSpec>();
    review?.proposal.files.forEach((file) => threadSpecs(review.shown[file.index], file, wanted));
    for (const [key, thread] of this.threads) {
      if (!wanted.has(key)) {
        thread.dispose();
        this.threads.delete(key);
      }
    }
    const visible = new Set(vscode.window.visibleTextEditors.map((e) => e.document.uri.toString()));
    wanted.forEach((spec, key) => {
      if (this.threads.has(key) || visible.has(spec.uri.toString())) {
        this.thread(key, spec);
      }
    });
  }

  private thread(key: string, spec: ThreadSpec): void {
    const range = new vscode.Range(spec.line, 0, spec.line, 0);
    let thread = this.threads.get(key);
    if (thread === undefined) {
      const comment: vscode.Comment = {
        body: new vscode.MarkdownString(spec.body),
        mode: vscode.CommentMode.Preview,
        author: { name: 'surehand' },
        contextValue: 'surehandHunk',
      };
      thread = this.comments.createCommentThread(spec.uri, range, [comment]);
      thread.canReply = false;
      thread.contextValue = 'surehandHunk';
      thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
      this.threads.set(key, thread);
    } else if (!thread.range?.isEqual(range)) {
      thread.range = range;
    }
    if (thread.label !== spec.label) {
      thread.label = spec.label;
    }
  }
}

interface ThreadSpec {
  readonly uri: vscode.Uri;
  readonly line: number;
  readonly label: string;
  readonly body: string;
}

/** The lines to decorate in one editor. */
interface Lines {
  readonly removed: vscode.Range[];
  readonly added: vscode.Range[];
  readonly stale: vscode.Range[];
}

/** A mark with its escape before each hidden character of `ranges`' lines. */
function hiddenMarks(document: vscode.TextDocument, ranges: readonly vscode.Range[]): vscode.DecorationOptions[] {
  const lines = new Set<number>();
  for (const range of ranges) {
    for (let line = range.start.line; line <= Math.min(range.end.line, document.lineCount - 1); line++) {
      lines.add(line);
    }
  }
  const marks: vscode.DecorationOptions[] = [];
  for (const line of lines) {
    const text = document.lineAt(line).text;
    for (const span of hiddenSpans(text)) {
      marks.push({
        range: new vscode.Range(line, span.offset, line, span.offset + span.length),
        hoverMessage: `A hidden character: ${span.shown}`,
        renderOptions: {
          // Its own background: the editor may draw the character itself on a red one.
          before: {
            contentText: span.shown,
            color: new vscode.ThemeColor('editorError.foreground'),
            backgroundColor: new vscode.ThemeColor('editor.background'),
            border: '1px solid',
            borderColor: new vscode.ThemeColor('editorError.foreground'),
            margin: '0 2px 0 0',
          },
        },
      });
    }
  }
  return marks;
}

/** The lines `file` colours on `document`. */
function drawLines(document: vscode.TextDocument, file: FileReview, lines: Lines): void {
  const whole = new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0);
  if (file.kind === 'create') {
    if (file.operation !== 'rejected') {
      lines.added.push(whole);
    }
    return;
  }
  if (file.kind === 'delete') {
    if (file.operation !== 'rejected') {
      (file.operationStale ? lines.stale : lines.removed).push(whole);
    }
    return;
  }
  const starts = lineStarts(file.text);
  for (const hunk of file.hunks) {
    const layout = hunkLayout(file.text, hunk, starts);
    if (hunk.decision !== 'rejected' && layout.removed !== undefined) {
      const range = new vscode.Range(layout.removed.start, 0, layout.removed.end - 1, 0);
      (hunk.stale ? lines.stale : lines.removed).push(range);
    }
  }
}

/** A thread for each of `file`'s hunks that adds lines and is not rejected, shown on `uri`. */
function threadSpecs(uri: vscode.Uri, file: FileReview, threads: Map<string, ThreadSpec>): void {
  if (file.kind === 'create' || file.kind === 'delete') {
    return;
  }
  const starts = lineStarts(file.text);
  for (const hunk of file.hunks) {
    const layout = hunkLayout(file.text, hunk, starts);
    if (hunk.decision !== 'rejected' && layout.added.length > 0) {
      threads.set(`${uri.toString()}#${hunk.id}`, {
        uri,
        line: Math.max(0, layout.anchorLine),
        label: threadLabel(hunk, hunkSummary(layout)),
        body: addedBlock(layout.added),
      });
    }
  }
}

/** The thread's head: the label made visible, and the warning for a file that changes how tools run. */
export function threadLabel(hunk: Hunk, summary: string): string {
  const label = visible(hunk.label);
  const governs = hunk.governs === undefined ? '' : ` ⚠ ${governsWords(hunk.governs)}`;
  if (hunk.stale) {
    return `stale (you edited these lines): ${label}${governs}`;
  }
  const state = hunk.decision === 'accepted' ? 'accepted: ' : '';
  return `surehand: ${state}${label} (${summary})${governs}`;
}
