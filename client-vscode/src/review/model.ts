/**
 * A proposal under review: the server's `WorkspaceEdit` parsed into files
 * and hunks, each hunk an offset span of the file's current text with the
 * text proposed for it. Free of the `vscode` module.
 *
 * A file is one of:
 * - `edit`: hunks against an existing document;
 * - `create`: a new file, its content the hunks against the empty text; the
 *   file and its hunks are accepted or rejected together;
 * - `delete`: a file to delete, no hunks;
 * - `rename`: a move, decided on its own, with hunks against the old file's
 *   text (they land in the new file if the move is accepted, else in place).
 */

import type {
  CreateFile,
  DeleteFile,
  DocumentChange,
  RenameFile,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from './protocol';
import { lineStarts, offsetAt, type Encoding } from './text';

export type Decision = 'pending' | 'accepted' | 'rejected';
export type FileKind = 'edit' | 'create' | 'delete' | 'rename';

export interface Hunk {
  /** `<file index>.<hunk index>`, unique in its proposal. */
  readonly id: string;
  readonly file: number;
  /** The hunk's place among its file's text edits, as the server sent them. */
  readonly index: number;
  readonly label: string;
  /** The span of the file's current text the hunk replaces. */
  start: number;
  end: number;
  /** What the span held when the proposal came. */
  readonly oldText: string;
  readonly newText: string;
  decision: Decision;
  /** The user's typing touched the span: the hunk can only be rejected. */
  stale: boolean;
  /** What the file governs when it changes how tools run (its annotation says so): accepted one by one only. */
  readonly governs?: string;
  /** The person rejected this very hunk earlier in the same task: it stays rejected. */
  readonly refused?: boolean;
}

export interface FileReview {
  readonly index: number;
  readonly kind: FileKind;
  /** Where the result goes (a rename's new URI). */
  readonly uri: string;
  /** The document the hunks are against and shown on (a rename's old URI; the new URI of a new file). */
  readonly textUri: string;
  /** The version the server read the document at; null when it was not open. */
  readonly version: number | null;
  /** The file operation's label (for an edit: its first hunk's). */
  readonly label: string;
  /** `textUri`'s text now: it follows the user's typing. */
  text: string;
  readonly hunks: Hunk[];
  /** The file operation's decision; always `accepted` for a plain edit. */
  operation: Decision;
  /** A file to delete that the user has typed in since: it can only be kept. */
  operationStale: boolean;
  /** What the file governs when it changes how tools run: its operation and hunks are accepted one by one only. */
  readonly governs?: string;
  /** The id of the proposal it belongs to. */
  readonly proposal: string;
}

export interface Proposal {
  /** Unique among the proposals reviewed; the start of every hunk id (lenses of an older review cannot decide this one). */
  readonly id: string;
  readonly files: FileReview[];
}

/** The start of the id of a change annotation on a file that changes how tools run (lsp_server/workspace_edit.py). */
export const GOVERNS_ID = 'surehand-governs-';
const GOVERNS_DESCRIPTION = 'changes how tools run: ';

/** What a file governs, from its change annotation; undefined for an ordinary file. */
export function governsOf(edit: WorkspaceEdit, id: string | undefined): string | undefined {
  if (id === undefined || !id.startsWith(GOVERNS_ID)) {
    return undefined;
  }
  const description = edit.changeAnnotations?.[id]?.description ?? '';
  const what = description.startsWith(GOVERNS_DESCRIPTION) ? description.slice(GOVERNS_DESCRIPTION.length) : description;
  return what.trim() || 'how tools run';
}

export interface ParseOptions {
  readonly encoding?: Encoding;
  /** The proposal's id (see `Proposal.id`). */
  readonly id?: string;
  /** Whether the person rejected this hunk earlier in the task (it comes back rejected). */
  readonly refused?: (uri: string, label: string, newText: string) => boolean;
}

/** The proposal cannot be reviewed as it is; the message says why. */
export class ProposalError extends Error {}

/** The documents whose current text `parseProposal` needs. */
export function textSources(edit: WorkspaceEdit): string[] {
  const created = new Set<string>();
  const sources: string[] = [];
  for (const change of changesOf(edit)) {
    if ('textDocument' in change) {
      if (!created.has(change.textDocument.uri)) {
        sources.push(change.textDocument.uri);
      }
    } else if (change.kind === 'create') {
      created.add(change.uri);
    } else if (change.kind === 'rename') {
      created.add(change.newUri);
      sources.push(change.oldUri);
    } else {
      sources.push(change.uri);
    }
  }
  return [...new Set(sources)];
}

/** Parse `edit` against `texts` (each source's current text, by URI). */
export function parseProposal(
  edit: WorkspaceEdit,
  texts: ReadonlyMap<string, string>,
  options: ParseOptions = {},
): Proposal {
  const encoding = options.encoding ?? 'utf-16';
  const id = options.id ?? '';
  const governs = (annotation: string | undefined): string | undefined => governsOf(edit, annotation);
  const labelOf = (id: string | undefined, fallback: string): string =>
    (id !== undefined && edit.changeAnnotations?.[id]?.label) || fallback;
  const files: FileReview[] = [];
  const byUri = new Map<string, FileReview>();
  const textOf = (uri: string): string => {
    const text = texts.get(uri);
    if (text === undefined) {
      throw new ProposalError(`The proposal edits ${uri}, which cannot be read.`);
    }
    return text;
  };
  const add = (file: NewFile): FileReview => {
    if (byUri.has(file.uri)) {
      throw new ProposalError(`The proposal changes ${file.uri} more than once.`);
    }
    const review: FileReview = {
      ...file,
      ...(file.governs === undefined ? {} : { governs: file.governs }),
      index: files.length,
      proposal: id,
      hunks: [],
      operation: file.kind === 'edit' ? 'accepted' : 'pending',
      operationStale: false,
    };
    files.push(review);
    byUri.set(file.uri, review);
    return review;
  };
  for (const change of changesOf(edit)) {
    if (!('textDocument' in change)) {
      const operation = operationFile(change, textOf, labelOf);
      const what = governs(change.annotationId);
      add(what === undefined ? operation : { ...operation, governs: what });
      continue;
    }
    const uri = change.textDocument.uri;
    const file =
      byUri.get(uri) ??
      add({
        kind: 'edit',
        uri,
        textUri: uri,
        version: change.textDocument.version,
        label: labelOf(change.edits[0]?.annotationId, 'change'),
        text: textOf(uri),
      });
    if (file.hunks.length > 0 || file.kind === 'delete') {
      throw new ProposalError(`The proposal changes ${uri} more than once.`);
    }
    file.hunks.push(...hunksOf(file, change, labelOf, encoding, id, governs, options.refused));
  }
  return { id, files };
}

type NewFile = Omit<FileReview, 'index' | 'hunks' | 'operation' | 'operationStale' | 'proposal'>;

function operationFile(
  change: CreateFile | DeleteFile | RenameFile,
  textOf: (uri: string) => string,
  labelOf: (id: string | undefined, fallback: string) => string,
): NewFile {
  const label = (fallback: string): string => labelOf(change.annotationId, fallback);
  switch (change.kind) {
    case 'create':
      return { kind: 'create', uri: change.uri, textUri: change.uri, version: null, label: label('new file'), text: '' };
    case 'delete': {
      const text = textOf(change.uri);
      return { kind: 'delete', uri: change.uri, textUri: change.uri, version: null, label: label('delete file'), text };
    }
    case 'rename': {
      const text = textOf(change.oldUri);
      return { kind: 'rename', uri: change.newUri, textUri: change.oldUri, version: null, label: label('rename file'), text };
    }
  }
}

function changesOf(edit: WorkspaceEdit): readonly DocumentChange[] {
  if (edit.documentChanges !== undefined) {
    return edit.documentChanges;
  }
  return Object.entries(edit.changes ?? {}).map(
    ([uri, edits]): TextDocumentEdit => ({ textDocument: { uri, version: null }, edits }),
  );
}

function hunksOf(
  file: FileReview,
  change: TextDocumentEdit,
  labelOf: (id: string | undefined, fallback: string) => string,
  encoding: Encoding,
  prefix: string,
  governs: (annotation: string | undefined) => string | undefined,
  refused: ParseOptions['refused'],
): Hunk[] {
  const starts = lineStarts(file.text);
  const spans = change.edits.map((edit: TextEdit, index) => ({
    edit,
    index,
    start: offsetAt(file.text, edit.range.start, encoding, starts),
    end: offsetAt(file.text, edit.range.end, encoding, starts),
  }));
  spans.sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);
  let previousEnd = 0;
  for (const span of spans) {
    if (span.end < span.start || span.start < previousEnd) {
      throw new ProposalError(`The proposal's edits of ${file.uri} overlap.`);
    }
    previousEnd = span.end;
  }
  return spans.map(({ edit, index, start, end }) => {
    const label = labelOf(edit.annotationId, file.label);
    const what = governs(edit.annotationId) ?? file.governs;
    const again = file.kind !== 'create' && refused !== undefined && refused(file.uri, label, edit.newText);
    return {
      id: `${prefix}${file.index}.${index}`,
      file: file.index,
      index,
      label,
      start,
      end,
      oldText: file.text.slice(start, end),
      newText: edit.newText,
      decision: file.kind === 'create' ? file.operation : again ? 'rejected' : 'pending',
      stale: false,
      ...(what === undefined ? {} : { governs: what }),
      ...(again ? { refused: true } : {}),
    };
  });
}
