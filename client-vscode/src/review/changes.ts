/**
 * The "Surehand: Changes" view's content: each file of the proposal with
 * what is left to decide, and under it its file operation and hunks, each
 * with its state. Free of the `vscode` module.
 */

import { pendingIn } from './decide';
import { hunkLayout, hunkSummary } from './layout';
import type { FileReview, Proposal } from './model';
import { lineStarts, splitLines } from './text';
import { visible } from '../visible';
import { count } from '../words';

export type NodeState = 'pending' | 'accepted' | 'rejected' | 'stale' | 'partly';

const GOVERNS = (what: string): string => `changes how tools run: ${visible(what)}`;

export interface ChangeNode {
  /** `file` for a file, `operation` for its create/delete/rename, `hunk` for a hunk. */
  readonly kind: 'file' | 'operation' | 'hunk';
  readonly file: number;
  readonly hunk?: string;
  readonly label: string;
  readonly description: string;
  readonly state: NodeState;
  /** The first line it covers (the cursor goes there when it is picked). */
  readonly line: number;
  /** Set when it changes how tools run: what it governs (the node carries a warning). */
  readonly governs?: string;
}

const OPERATION = { create: 'new file', delete: 'delete file', rename: 'rename to' } as const;

/** `path` relative to `root` when under it, made visible. */
function relative(uri: string, root: string | undefined): string {
  const path = decodeURIComponent(uri.replace(/^[a-z][\w+.-]*:\/\//i, ''));
  const base = root === undefined ? undefined : decodeURIComponent(root.replace(/^[a-z][\w+.-]*:\/\//i, '')).replace(/\/$/, '');
  return visible(base !== undefined && path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path);
}

export function fileNodes(proposal: Proposal, root?: string): ChangeNode[] {
  return proposal.files.map((file) => {
    const children = childNodes(file);
    const states = new Set(children.map((c) => c.state));
    const pending = pendingIn(file);
    const state: NodeState =
      pending > 0 ? 'pending' : states.size === 1 ? ([...states][0] === 'stale' ? 'rejected' : [...states][0]) : 'partly';
    const what = pending > 0 ? `${pending} to decide` : state === 'partly' ? 'partly accepted' : state;
    const name = relative(file.kind === 'rename' ? file.textUri : file.uri, root);
    const governs = file.governs ?? file.hunks.find((h) => h.governs !== undefined)?.governs;
    const description = governs === undefined ? what : `${what} · ${GOVERNS(governs)}`;
    return { kind: 'file', file: file.index, label: name, description, state, line: 0, ...(governs === undefined ? {} : { governs }) };
  });
}

export function childNodes(file: FileReview, root?: string): ChangeNode[] {
  const out: ChangeNode[] = [];
  if (file.kind !== 'edit') {
    const state: NodeState = file.operation === 'pending' && file.operationStale ? 'stale' : file.operation;
    const target = file.kind === 'rename' ? ` ${relative(file.uri, root)}` : '';
    const lines = file.kind === 'create' ? ` (${count(splitLines(file.hunks.map((h) => h.newText).join('')).length, 'line')})` : '';
    const label = visible(file.label);
    const governs = file.governs === undefined ? '' : ` · ${GOVERNS(file.governs)}`;
    out.push({
      kind: 'operation',
      file: file.index,
      label: `${OPERATION[file.kind]}${target}${lines}`,
      description: `${state === 'pending' ? label : `${state} · ${label}`}${governs}`,
      state,
      line: 0,
      ...(file.governs === undefined ? {} : { governs: file.governs }),
    });
  }
  if (file.kind === 'create') {
    return out;
  }
  const starts = lineStarts(file.text);
  for (const hunk of [...file.hunks].sort((a, b) => a.start - b.start)) {
    const layout = hunkLayout(file.text, hunk, starts);
    const state: NodeState = hunk.stale && hunk.decision === 'pending' ? 'stale' : hunk.decision;
    const said = hunk.refused ? 'rejected earlier in this task' : state;
    const governs = hunk.governs === undefined ? '' : ` · ${GOVERNS(hunk.governs)}`;
    out.push({
      kind: 'hunk',
      file: file.index,
      hunk: hunk.id,
      label: visible(hunk.label),
      description:
        (state === 'pending' ? `line ${layout.lensLine + 1}: ${hunkSummary(layout)}` : `${said} · line ${layout.lensLine + 1}`) + governs,
      state,
      line: layout.lensLine,
      ...(hunk.governs === undefined ? {} : { governs: hunk.governs }),
    });
  }
  return out;
}
