import { describe, expect, it } from 'vitest';
import { addedBlock, hunkLayout, hunkSummary } from '../src/review/layout';

const text = 'one\ntwo\nthree\n';

describe('hunk layout', () => {
  it('replacing lines: red lines, additions under the last one, lens above the first', () => {
    const layout = hunkLayout(text, { start: 4, end: 14, newText: 'TWO\n' });
    expect(layout).toEqual({ lensLine: 1, removed: { start: 1, end: 3 }, added: ['TWO'], anchorLine: 2 });
    expect(hunkSummary(layout)).toBe('replace 2 lines with 1');
  });

  it('inserting lines: no red, additions under the line before', () => {
    const layout = hunkLayout(text, { start: 4, end: 4, newText: 'a\nb\n' });
    expect(layout).toEqual({ lensLine: 1, removed: undefined, added: ['a', 'b'], anchorLine: 0 });
    expect(hunkSummary(layout)).toBe('insert 2 lines');
    expect(hunkLayout(text, { start: 0, end: 0, newText: 'x\n' }).anchorLine).toBe(-1);
  });

  it('deleting lines, and a last line without a line break', () => {
    expect(hunkSummary(hunkLayout(text, { start: 0, end: 4, newText: '' }))).toBe('delete 1 line');
    expect(hunkLayout('a\nb', { start: 2, end: 3, newText: 'c' }).removed).toEqual({ start: 1, end: 2 });
  });

  it('shows added lines as a diff block that their backticks cannot close', () => {
    expect(addedBlock(['x = 1', '  y'])).toBe('```diff\n+x = 1\n+  y\n```');
    expect(addedBlock(['s = "````"'])).toBe('`````diff\n+s = "````"\n`````');
  });
});
