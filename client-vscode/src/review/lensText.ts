/**
 * What the review's CodeLenses say, fitted into one row per line. Free of
 * the `vscode` module.
 *
 * VS Code draws every lens of a line in one row and never wraps it: a
 * rename decided at the top of the file and a hunk on its first line share
 * the row (so a rename has no title lens: "Accept Rename to <name>" says
 * it). Each row is kept within `MAX_ROW` characters (`fitRow`); what is cut
 * is in the tooltips, whole.
 */

import { COMMANDS, withKey } from './keys';
import { hunkLayout, hunkSummary, type HunkLayout } from './layout';
import type { FileReview, Hunk } from './model';
import { lineStarts } from './text';
import { visible, visibleLabel } from '../visible';

/** The marker of a change to a file that changes how tools run. */
export const GOVERNS_MARK = '$(warning)';

/** The sentence for such a change. */
export function governsWords(what: string): string {
  return `changes how tools run: ${visible(what)}; accept it on its own`;
}

export const ACCEPT = 'surehand.review.accept';
export const REJECT = 'surehand.review.reject';
export const UNDO = 'surehand.review.undo';
export const ACCEPT_FILE = 'surehand.review.acceptFile';
export const REJECT_FILE = 'surehand.review.rejectFile';
export const UNDO_FILE = 'surehand.review.undoFile';
export const SHOW_DIFF = 'surehand.review.showDiff';

export const MAX_ROW = 110;
const SEPARATOR = 3; // " | " between lenses
const LABEL_MAX = 40;
const LABEL_MIN = 10;

export interface LensText {
  readonly title: string;
  readonly tooltip?: string;
  /** The command's id, or '' for a title without action. */
  readonly command: string;
  readonly args: readonly unknown[];
}

/** A lens before fitting: `label` and `summary` may be shortened or dropped. */
export interface LensSpec {
  readonly text: (label: string, summary: string | undefined) => string;
  readonly label?: string;
  readonly summary?: string;
  readonly tooltip?: string;
  readonly command: string;
  readonly args?: readonly unknown[];
}

/** `text` cut to `max` characters, with "…" when cut. */
export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(1, max - 1)).trimEnd()}…`;
}

export function rowWidth(titles: readonly string[]): number {
  return titles.reduce((sum, t) => sum + t.length, 0) + SEPARATOR * Math.max(0, titles.length - 1);
}

/** The ways to shorten a row, mildest first: labels, then summaries too. */
const STEPS: { labelMax: number; summaries: boolean }[] = [
  ...[LABEL_MAX, 30, 20].map((labelMax) => ({ labelMax, summaries: true })),
  ...[30, 20, 15, LABEL_MIN].map((labelMax) => ({ labelMax, summaries: false })),
];

/** The lenses of one row, shortened until the row fits; what is cut is in the tooltip, whole. */
export function fitRow(specs: readonly LensSpec[], max = MAX_ROW): LensText[] {
  const render = (labelMax: number, summaries: boolean): LensText[] =>
    specs.map((spec) => {
      const full = spec.text(spec.label ?? '', spec.summary);
      const title = spec.text(shorten(spec.label ?? '', labelMax), summaries ? spec.summary : undefined);
      const tooltip = [spec.tooltip, title === full ? undefined : full].filter(Boolean).join('\n');
      return { title, command: spec.command, args: spec.args ?? [], ...(tooltip ? { tooltip } : {}) };
    });
  for (const step of STEPS) {
    const row = render(step.labelMax, step.summaries);
    if (rowWidth(row.map((l) => l.title)) <= max) {
      return row;
    }
  }
  return render(LABEL_MIN, false);
}

/** The lenses of `files` (those shown on one document), by line, each row fitted. */
export function lensRows(files: readonly FileReview[], mac: boolean): Map<number, LensText[]> {
  const rows = new Map<number, LensSpec[]>();
  const add = (line: number, specs: LensSpec[]): void => {
    if (specs.length > 0) {
      rows.set(line, [...(rows.get(line) ?? []), ...specs]);
    }
  };
  for (const file of files) {
    add(0, operationLenses(file, mac).map((spec) => shown(spec)));
    if (file.kind !== 'create') {
      // A new file's hunks go with the file: only an existing file's hunks have lenses of their own.
      const starts = lineStarts(file.text);
      for (const hunk of file.hunks) {
        const layout = hunkLayout(file.text, hunk, starts);
        add(layout.lensLine, hunkLenses(file, hunk, layout, mac).map((spec) => shown(spec)));
      }
    }
  }
  return new Map([...rows].map(([line, specs]) => [line, fitRow(specs)]));
}

/** A lens with its model-chosen label made visible (and its tooltip). */
function shown(spec: LensSpec): LensSpec {
  return {
    ...spec,
    ...(spec.label === undefined ? {} : { label: visibleLabel(spec.label) }),
    ...(spec.tooltip === undefined ? {} : { tooltip: visible(spec.tooltip, '\n') }),
  };
}

const OPERATION_WORDS = {
  create: { name: 'new file', accept: 'Accept New File', reject: 'Reject New File' },
  delete: { name: 'delete', accept: 'Accept Deletion', reject: 'Reject Deletion' },
  rename: { name: 'rename to', accept: 'Accept Rename', reject: 'Reject Rename' },
} as const;

function action(title: string, command: string, args: unknown[], key: string | undefined, mac: boolean): LensSpec {
  return { text: () => title, command, args, tooltip: key === undefined ? undefined : withKey(title, key, mac) };
}

function operationLenses(file: FileReview, mac: boolean): LensSpec[] {
  if (file.kind === 'edit') {
    return [];
  }
  const words = OPERATION_WORDS[file.kind];
  const name = decodeURIComponent(file.uri.replace(/[?#].*$/, '').split('/').pop() ?? file.uri);
  const what = `${words.name} ${name}`;
  const args = [file.index, file.proposal];
  const mark = file.governs === undefined ? '' : `${GOVERNS_MARK} `;
  const warning = file.governs === undefined ? undefined : governsWords(file.governs);
  if (file.operation !== 'pending') {
    const done = file.operation === 'accepted' ? 'Accepted' : 'Rejected';
    const undo = action('Undo', UNDO_FILE, args, undefined, mac);
    return [{ text: (l) => `${mark}${done}: ${l}`, label: what, command: '' }, undo];
  }
  if (file.operationStale) {
    return [
      { text: (l) => `surehand: ${l} — stale: you edited this file; it can only be kept`, label: what, command: '' },
      action(words.reject, REJECT_FILE, args, COMMANDS.rejectFile, mac),
    ];
  }
  const accept = action(words.accept, ACCEPT_FILE, args, COMMANDS.acceptHunk, mac);
  const reject = action(words.reject, REJECT_FILE, args, COMMANDS.rejectHunk, mac);
  if (file.kind === 'rename') {
    // No title: the row is shared with a hunk on the first line, whose lenses carry their own Show Diff.
    const tooltip = [accept.tooltip, file.label, warning].filter(Boolean).join('\n');
    const to = { ...accept, text: (l: string) => `${mark}Accept Rename to ${l}`, label: name, tooltip };
    return [to, reject];
  }
  const title: LensSpec = {
    text: (l, summary) => `${mark}surehand: ${l}${summary === undefined ? '' : ` — ${summary}`}`,
    label: what,
    ...(warning === undefined ? {} : { summary: warning }),
    tooltip: [file.label, warning].filter(Boolean).join('\n'),
    command: '',
  };
  return [title, accept, reject, action('Show Diff', SHOW_DIFF, [file.index], undefined, mac)];
}

function hunkLenses(file: FileReview, hunk: Hunk, layout: HunkLayout, mac: boolean): LensSpec[] {
  const mark = hunk.governs === undefined ? '' : `${GOVERNS_MARK} `;
  if (hunk.refused) {
    return [{ text: (l) => `Rejected earlier in this task: ${l}`, label: hunk.label, command: '' }];
  }
  if (hunk.decision !== 'pending') {
    const done = hunk.decision === 'accepted' ? 'Accepted' : 'Rejected';
    const undo = action('Undo', UNDO, [hunk.id], undefined, mac);
    return [{ text: (l) => `${mark}${done}: ${l}`, label: hunk.label, command: '' }, undo];
  }
  if (hunk.stale) {
    return [
      {
        text: (l) => `surehand: ${l} — stale: you edited these lines; it can only be rejected`,
        label: hunk.label,
        command: '',
      },
      action('Reject', REJECT, [hunk.id], COMMANDS.rejectHunk, mac),
    ];
  }
  const keys = `${withKey('Next', COMMANDS.next, mac)}, ${withKey('previous', COMMANDS.previous, mac)}`;
  return [
    {
      text: (l, summary) => `${mark}surehand: ${l}${summary === undefined ? '' : ` — ${summary}`}`,
      label: hunk.label,
      summary: hunk.governs === undefined ? hunkSummary(layout) : `${governsWords(hunk.governs)} — ${hunkSummary(layout)}`,
      tooltip: hunk.governs === undefined ? keys : `${governsWords(hunk.governs)}\n${keys}`,
      command: '',
    },
    action('Accept', ACCEPT, [hunk.id], COMMANDS.acceptHunk, mac),
    action('Reject', REJECT, [hunk.id], COMMANDS.rejectHunk, mac),
    action('Show Diff', SHOW_DIFF, [file.index], undefined, mac),
  ];
}
