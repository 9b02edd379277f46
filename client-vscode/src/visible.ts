/**
 * The one rule for showing text a model chose (a command, a path, a label,
 * code) to a person, as `editing/visible.py` has it. Free of the `vscode`
 * module.
 *
 * An editor interprets some characters instead of showing them: an escape
 * sequence, a carriage return, a bidirectional override that reorders what
 * follows, a zero-width or format character that hides in an identifier.
 * Text a model chose is shown with every such character as a visible escape
 * (`\x1b`, `\u202e`, `\U000e0041`), so what a person reads is what the
 * characters are.
 *
 * `HIDDEN` is the same table of inclusive code point ranges as the Python
 * rule's (the unit tests read the Python file and compare): Unicode
 * categories Cc, Cf, Zl and Zp.
 */

export const HIDDEN: readonly (readonly [number, number])[] = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x0600, 0x0605],
  [0x061c, 0x061c],
  [0x06dd, 0x06dd],
  [0x070f, 0x070f],
  [0x0890, 0x0891],
  [0x08e2, 0x08e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
];

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** One code point of the table, as a regular expression class member (the `u` flag). */
const member = (point: number): string => `\\u{${point.toString(16)}}`;

const HIDDEN_CLASS = `[${HIDDEN.map(([low, high]) => (low === high ? member(low) : `${member(low)}-${member(high)}`)).join('')}]`;
const ANY_HIDDEN = new RegExp(HIDDEN_CLASS, 'u');
const ALL_HIDDEN = new RegExp(HIDDEN_CLASS, 'gu');

/** The visible escape of one hidden character (a whole code point): `\x1b`, `\u202e`, `\U000e0041`. */
export function escapeChar(char: string): string {
  const point = char.codePointAt(0) ?? 0;
  if (point <= 0xff) {
    return `\\x${hex(point, 2)}`;
  }
  if (point <= 0xffff) {
    return `\\u${hex(point, 4)}`;
  }
  return `\\U${hex(point, 8)}`;
}

export function isHidden(char: string): boolean {
  const point = char.codePointAt(0);
  return point !== undefined && HIDDEN.some(([low, high]) => low <= point && point <= high);
}

/** The first hidden character of `text`, undefined when it has none. */
export function hiddenIn(text: string): string | undefined {
  return ANY_HIDDEN.exec(text)?.[0];
}

/**
 * `text` with every hidden character, except those in `keep`, as a visible
 * escape. `keep` is for the few a view lays out itself: a tab in a line of
 * code, line breaks in a block shown as lines. Text without hidden
 * characters comes back unchanged.
 */
export function visible(text: string, keep = ''): string {
  if (!ANY_HIDDEN.test(text)) {
    return text;
  }
  return text.replace(ALL_HIDDEN, (char) => (keep.includes(char) ? char : escapeChar(char)));
}

/**
 * A block of lines (code, a model's message): its line breaks and tabs laid
 * out, every other hidden character escaped (a lone carriage return too; a
 * CRLF ending is a line break).
 */
export function visibleLines(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => visible(line, '\t'))
    .join('\n');
}

/**
 * `text` for a place that also reads `$(icon)` syntax (CodeLens titles, the
 * status bar, progress and tree labels): visible, and its `$(` escaped so a
 * model cannot draw an icon (a check mark, say) into a label.
 */
export function visibleLabel(text: string): string {
  return visible(text).replace(/(?<!\\)\$\(/g, '\\$(');
}

/**
 * `text` for a notification: visible (line breaks kept), and with no link.
 * VS Code turns `[label](https:…)`, `[label](command:…)` and `[label](file:…)`
 * in a notification into a link that opens a page, runs a command or a file
 * on a click; model words (a summary, a path) must not become one, so a
 * `](` is shown as `] (`.
 */
export function visibleNotice(text: string): string {
  return visible(text, '\n').replace(/\]\(/g, '] (');
}

/** A hidden character in a text, where it is and how it shows. */
export interface HiddenSpan {
  readonly offset: number;
  /** In UTF-16 code units (2 for a code point beyond U+FFFF). */
  readonly length: number;
  readonly shown: string;
}

/**
 * The hidden characters of a text an editor shows as it is (a buffer, a new
 * file's proposed content), for marking each with its escape: every one but
 * tabs and line breaks, which the editor lays out.
 */
export function hiddenSpans(text: string): HiddenSpan[] {
  const out: HiddenSpan[] = [];
  for (const match of text.matchAll(ALL_HIDDEN)) {
    const char = match[0];
    if (char !== '\t' && char !== '\n' && char !== '\r') {
      out.push({ offset: match.index, length: char.length, shown: escapeChar(char) });
    }
  }
  return out;
}
