/**
 * Which Python runs the language server. Free of the `vscode` module.
 *
 * The order, first match wins:
 * 1. the setting `surehand.python`, when set (`~` and `${workspaceFolder}`
 *    expanded);
 * 2. `python3` from the PATH.
 *
 * Each candidate is then checked with `<python> -c "import lsp_server"`;
 * the first that imports the server is used (see `server.ts`).
 */

export interface Candidate {
  readonly python: string;
  /** Where the candidate came from, for the log: "setting surehand.python" or "default". */
  readonly source: string;
}

const DEFAULT_PYTHON = 'python3';

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

/** The interpreters to try, in order, without duplicates. */
export function candidates(setting: string | undefined, places: Places): Candidate[] {
  const out: Candidate[] = [];
  const configured = setting === undefined ? '' : expand(setting, places);
  if (configured !== '') {
    out.push({ python: configured, source: 'setting surehand.python' });
  }
  if (!out.some((c) => c.python === DEFAULT_PYTHON)) {
    out.push({ python: DEFAULT_PYTHON, source: 'default' });
  }
  return out;
}

/**
 * The command that installs the server for `python`: an editable install of
 * the repository the extension was built in, or, when that is not known, a
 * placeholder for it (surehand is not published on PyPI, and a package of
 * that name there would not be ours).
 */
export function installCommand(python: string, repository: string | undefined): string {
  const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const target = `-e ${repository === undefined ? '<path to the surehand repository>' : quote(repository)}`;
  return `${quote(python)} -m pip install ${target}`;
}
