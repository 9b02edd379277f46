/**
 * Offsets in a text and LSP positions, free of the `vscode` module.
 *
 * Everything in the review works in string offsets (indices into a JS
 * string, so UTF-16 code units); positions exist only where protocol values
 * come in. A line ends at `\n`, `\r\n` or `\r` and nowhere else (not at
 * U+2028 or a form feed). A position's `character` counts code units of the
 * negotiated encoding: UTF-16 (VS Code's own and the client's default),
 * UTF-8 or UTF-32.
 */

export interface Position {
  readonly line: number;
  readonly character: number;
}

export interface Range {
  readonly start: Position;
  readonly end: Position;
}

export type Encoding = 'utf-16' | 'utf-8' | 'utf-32';

const BREAK = /\r\n|\r|\n/g;

/** The offset where each line starts; always at least `[0]`. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (const match of text.matchAll(BREAK)) {
    starts.push(match.index + match[0].length);
  }
  return starts;
}

/** The text of each line, without its line break; a final break ends the last line. */
export function splitLines(text: string): string[] {
  if (text === '') {
    return [];
  }
  const lines = text.split(BREAK);
  if (lines.at(-1) === '') {
    lines.pop();
  }
  return lines;
}

/** The length of one code point (given as a string) in units of `encoding`. */
function unitsOf(char: string, encoding: Encoding): number {
  if (encoding === 'utf-16') {
    return char.length;
  }
  if (encoding === 'utf-32') {
    return 1;
  }
  const code = char.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

/** Where `line`'s text ends: before its line break. */
function lineEnd(text: string, starts: readonly number[], line: number): number {
  if (line + 1 >= starts.length) {
    return text.length;
  }
  let end = starts[line + 1];
  if (text[end - 1] === '\n') {
    end -= 1;
  }
  if (end > starts[line] && text[end - 1] === '\r') {
    end -= 1;
  }
  return end;
}

/**
 * The offset of `pos` in `text`. A line past the end is the end of the text;
 * a character past the end of its line is the line's end (as the LSP says).
 */
export function offsetAt(
  text: string,
  pos: Position,
  encoding: Encoding = 'utf-16',
  starts: readonly number[] = lineStarts(text),
): number {
  if (pos.line >= starts.length) {
    return text.length;
  }
  const line = Math.max(0, pos.line);
  const begin = starts[line];
  const end = lineEnd(text, starts, line);
  if (encoding === 'utf-16') {
    return Math.min(begin + Math.max(0, pos.character), end);
  }
  let counted = 0;
  let offset = begin;
  while (offset < end && counted < pos.character) {
    const char = String.fromCodePoint(text.codePointAt(offset) ?? 0);
    counted += unitsOf(char, encoding);
    offset += char.length;
  }
  return offset;
}

/** The position of `offset` in `text`, its character in units of `encoding`. */
export function positionAt(
  text: string,
  offset: number,
  encoding: Encoding = 'utf-16',
  starts: readonly number[] = lineStarts(text),
): Position {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= clamped) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  const prefix = text.slice(starts[low], clamped);
  if (encoding === 'utf-16') {
    return { line: low, character: prefix.length };
  }
  let character = 0;
  for (const char of prefix) {
    character += unitsOf(char, encoding);
  }
  return { line: low, character };
}
