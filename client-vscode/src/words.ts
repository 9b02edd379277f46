/** Wording shared by the status bar and the notifications. Free of the `vscode` module. */

/** `1 hunk`, `2 hunks`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
