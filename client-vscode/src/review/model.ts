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
}

export interface Proposal {
  readonly files: FileReview[];
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
  encoding: Encoding = 'utf-16',
): Proposal {
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
      index: files.length,
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
      add(operationFile(change, textOf, labelOf));
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
    file.hunks.push(...hunksOf(file, change, labelOf, encoding));
  }
  return { files };
}

type NewFile = Omit<FileReview, 'index' | 'hunks' | 'operation' | 'operationStale'>;

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
  return spans.map(({ edit, index, start, end }) => ({
    id: `${file.index}.${index}`,
    file: file.index,
    index,
    label: labelOf(edit.annotationId, file.label),
    start,
    end,
    oldText: file.text.slice(start, end),
    newText: edit.newText,
    decision: file.kind === 'create' ? file.operation : 'pending',
    stale: false,
  }));
}
