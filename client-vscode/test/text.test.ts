import { describe, expect, it } from 'vitest';
import { lineStarts, offsetAt, positionAt, splitLines } from '../src/review/text';

describe('lines', () => {
  it('end at \\n, \\r\\n and \\r only', () => {
    const text = 'a\nb\r\nc\rd\u2028e\ff';
    expect(lineStarts(text)).toEqual([0, 2, 5, 7]);
    expect(splitLines(text)).toEqual(['a', 'b', 'c', 'd\u2028e\ff']);
  });

  it('a final break ends the last line; the empty text has none', () => {
    expect(splitLines('x\n')).toEqual(['x']);
    expect(splitLines('x\n\n')).toEqual(['x', '']);
    expect(splitLines('')).toEqual([]);
    expect(lineStarts('')).toEqual([0]);
  });
});

describe('positions and offsets', () => {
  // "🙂" is two UTF-16 units and four UTF-8 bytes; "日本" are three UTF-8 bytes each.
  const text = 'a🙂b\r\n日本x\nlast';

  it('round-trip in UTF-16 (VS Code)', () => {
    for (let offset = 0; offset <= text.length; offset++) {
      if (text[offset - 1] === '\r' && text[offset] === '\n') {
        continue; // inside a \r\n break: not a place a position can name
      }
      expect(offsetAt(text, positionAt(text, offset))).toBe(offset);
    }
    expect(positionAt(text, text.indexOf('b'))).toEqual({ line: 0, character: 3 });
    expect(positionAt(text, text.indexOf('x'))).toEqual({ line: 1, character: 2 });
  });

  it('count UTF-8 and UTF-32 units when asked', () => {
    const b = text.indexOf('b');
    const x = text.indexOf('x');
    expect(positionAt(text, b, 'utf-8')).toEqual({ line: 0, character: 5 });
    expect(positionAt(text, b, 'utf-32')).toEqual({ line: 0, character: 2 });
    expect(positionAt(text, x, 'utf-8')).toEqual({ line: 1, character: 6 });
    expect(offsetAt(text, { line: 0, character: 5 }, 'utf-8')).toBe(b);
    expect(offsetAt(text, { line: 0, character: 2 }, 'utf-32')).toBe(b);
    expect(offsetAt(text, { line: 1, character: 6 }, 'utf-8')).toBe(x);
  });

  it('clamp past the end of a line or the text', () => {
    expect(offsetAt(text, { line: 0, character: 99 })).toBe(text.indexOf('\r'));
    expect(offsetAt(text, { line: 9, character: 0 })).toBe(text.length);
    expect(offsetAt('a\rb', { line: 0, character: 5 })).toBe(1);
    expect(positionAt(text, 999)).toEqual({ line: 2, character: 4 });
  });
});
