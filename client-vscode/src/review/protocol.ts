/**
 * The parts of LSP's `WorkspaceEdit` the review reads, as plain types (the
 * review's pure modules import neither `vscode` nor the protocol package).
 */

import type { Range } from './text';

export interface TextEdit {
  readonly range: Range;
  readonly newText: string;
  readonly annotationId?: string;
}

export interface TextDocumentEdit {
  readonly textDocument: { readonly uri: string; readonly version: number | null };
  readonly edits: readonly TextEdit[];
}

export interface CreateFile {
  readonly kind: 'create';
  readonly uri: string;
  readonly annotationId?: string;
}

export interface DeleteFile {
  readonly kind: 'delete';
  readonly uri: string;
  readonly annotationId?: string;
}

export interface RenameFile {
  readonly kind: 'rename';
  readonly oldUri: string;
  readonly newUri: string;
  readonly annotationId?: string;
}

export type DocumentChange = TextDocumentEdit | CreateFile | DeleteFile | RenameFile;

export interface ChangeAnnotation {
  readonly label: string;
  readonly needsConfirmation?: boolean;
  readonly description?: string;
}

export interface WorkspaceEdit {
  readonly documentChanges?: readonly DocumentChange[];
  readonly changes?: { readonly [uri: string]: readonly TextEdit[] };
  readonly changeAnnotations?: { readonly [id: string]: ChangeAnnotation };
}

/** One decided hunk or file operation, as `surehand/reviewed` reports it to the server. */
export interface ReviewedHunk {
  readonly uri: string;
  /** The hunk's place among its file's text edits, in the order the server sent them; -1 for a file operation. */
  readonly index: number;
  readonly label: string;
  readonly accepted: boolean;
  /** Set for a file operation. */
  readonly operation?: 'create' | 'delete' | 'rename';
  /** Set when the user's typing touched the hunk, so it could only be rejected. */
  readonly stale?: boolean;
}

export const REVIEWED_NOTIFICATION = 'surehand/reviewed';
