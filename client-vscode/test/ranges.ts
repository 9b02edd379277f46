/** LSP positions and ranges, written short. */

import type { Position, Range } from '../src/review/text';

export const at = (line: number, character = 0): Position => ({ line, character });

/** From the start of line `from` to the start of line `to`; empty at `from` when `to` is left out. */
export const lines = (from: number, to = from): Range => ({ start: at(from), end: at(to) });
