/**
 * Checks an interpreter for the language server (Node I/O, no `vscode`).
 */

import { execFile } from 'node:child_process';

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
