/** Expanding `~` and `${workspaceFolder}` in `surehand.python`. Free of the `vscode` module. */

export interface Places {
  readonly home: string;
  readonly workspaceFolder?: string;
}

export function expand(value: string, places: Places): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/')) {
    out = places.home + out.slice(1);
  }
  if (places.workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(places.workspaceFolder);
  }
  return out;
}
