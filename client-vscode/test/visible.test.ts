import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeChar, HIDDEN, hiddenIn, hiddenSpans, isHidden, visible, visibleLabel, visibleLines, visibleNotice } from '../src/visible';

/** The `HIDDEN` table of the Python rule, read from its source. */
function pythonTable(): [number, number][] {
  const source = readFileSync(join(__dirname, '..', '..', 'editing', 'visible.py'), 'utf8');
  const block = /^HIDDEN:[^=]*=\s*\(([\s\S]*?)^\)/m.exec(source);
  expect(block, 'no HIDDEN table in editing/visible.py').not.toBeNull();
  return [...(block?.[1] ?? '').matchAll(/\(\s*(0x[0-9A-Fa-f]+)\s*,\s*(0x[0-9A-Fa-f]+)\s*\)/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);
}

describe('the one rule for showing model-chosen text', () => {
  it('holds the same table as editing/visible.py', () => {
    const table = pythonTable();
    expect(table.length).toBeGreaterThan(10);
    expect(HIDDEN.map(([low, high]) => [low, high])).toEqual(table);
  });

  it('escapes as the Python rule does: \\x for <= 0xFF, \\u for <= 0xFFFF, \\U beyond', () => {
    expect(escapeChar('\x1b')).toBe('\\x1b');
    expect(escapeChar('\x7f')).toBe('\\x7f');
    expect(escapeChar('\u202e')).toBe('\\u202e');
    expect(escapeChar('\u{e0041}')).toBe('\\U000e0041');
  });

  it('shows a terminal escape sequence and a bidi override as what they are', () => {
    const command = "touch /tmp/pwned \x1b[2K\x1b[1Gpytest -q";
    expect(visible(command)).toBe('touch /tmp/pwned \\x1b[2K\\x1b[1Gpytest -q');
    expect(visible('return a\u202e + b')).toBe('return a\\u202e + b');
    expect(visible('tag\u{e0041}\u{e007f}')).toBe('tag\\U000e0041\\U000e007f');
    expect(visible('zero\u200bwidth\ufeff')).toBe('zero\\u200bwidth\\ufeff');
    expect(visible('a\rb\nc\td')).toBe('a\\x0db\\x0ac\\x09d');
  });

  it('keeps what the view lays out itself, and plain text as it is', () => {
    expect(visible('a\tb\x1b', '\t')).toBe('a\tb\\x1b');
    const plain = 'def f(x): return x  # é ü 日本 🙂';
    expect(visible(plain)).toBe(plain);
    expect(hiddenIn(plain)).toBeUndefined();
    expect(hiddenIn('ok\u2066')).toBe('\u2066');
  });

  it('lays out a block of lines: tabs and line breaks kept, a lone CR escaped, CRLF a break', () => {
    expect(visibleLines('a\r\n\tb\rc\n\x1b[2Kd')).toBe('a\n\tb\\x0dc\n\\x1b[2Kd');
  });

  it('agrees with the table on every code point', () => {
    const inTable = (p: number): boolean => HIDDEN.some(([low, high]) => low <= p && p <= high);
    for (let p = 0; p <= 0x10ffff; p++) {
      if (p >= 0xd800 && p <= 0xdfff) {
        continue;
      }
      const char = String.fromCodePoint(p);
      const hidden = inTable(p);
      if (isHidden(char) !== hidden || (visible(char) !== char) !== hidden) {
        expect({ point: p.toString(16), hidden, isHidden: isHidden(char), shown: visible(char) }).toBeNull();
      }
    }
  });

  it('escapes icon syntax where a label would draw one', () => {
    expect(visibleLabel('$(check) Accepted: x\u202e')).toBe('\\$(check) Accepted: x\\u202e');
  });

  it('finds the hidden characters of a text shown as it is, but tabs and line breaks', () => {
    expect(hiddenSpans('a\tb\x1b[2K\r\nc\u202ed\u{e0041}\n')).toEqual([
      { offset: 3, length: 1, shown: '\\x1b' },
      { offset: 10, length: 1, shown: '\\u202e' },
      { offset: 12, length: 2, shown: '\\U000e0041' },
    ]);
  });
});

describe('a notification', () => {
  it('shows a link a model wrote as text, never as a link', () => {
    const summary = 'Fixed. [Open the docs](command:workbench.action.terminal.new) or [x](https://e.invalid)';
    const shown = visibleNotice(summary);
    expect(shown).not.toMatch(/\]\(/);
    expect(shown).toBe('Fixed. [Open the docs] (command:workbench.action.terminal.new) or [x] (https://e.invalid)');
  });

  it('keeps line breaks and escapes everything else', () => {
    expect(visibleNotice('a\nb\x1b[2K')).toBe('a\nb\\x1b[2K');
  });
});
