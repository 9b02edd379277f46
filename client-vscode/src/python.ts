/**
 * Checks an interpreter for the language server (Node I/O, no `vscode`).
 */

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export type ImportCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const CHECK_TIMEOUT_MS = 20_000;

/** Whether `python -c "import lsp_server"` succeeds when run in `cwd`. */
export function checkImport(python: string, cwd: string | undefined): Promise<ImportCheck> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import lsp_server'], { cwd, timeout: CHECK_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (error === null) {
        resolve({ ok: true });
        return;
      }
      const lastLine = stderr.trim().split(/\r?\n/).at(-1);
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'not found' : lastLine || error.message;
      resolve({ ok: false, reason });
    });
  });
}

/**
 * The surehand repository this extension was built in (its parent folder,
 * when that holds surehand's `pyproject.toml`), for an editable install.
 */
export function repositoryOf(extensionPath: string): string | undefined {
  const parent = path.dirname(extensionPath);
  const pyproject = path.join(parent, 'pyproject.toml');
  try {
    return existsSync(pyproject) && /^name = "surehand"$/m.test(readFileSync(pyproject, 'utf8')) ? parent : undefined;
  } catch {
    return undefined;
  }
}
