/**
 * Builds the server's wheel from the repository's pyproject.toml into
 * client-vscode/server/ (the .vsix ships it; the extension installs it into
 * its own virtual environment). The Python: SUREHAND_BUILD_PYTHON, else the
 * repository's .venv, else python3. Usage: node scripts/wheel.mjs
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO = resolve(CLIENT, '..');
const OUT = join(CLIENT, 'server');

const venv = join(REPO, '.venv', 'bin', 'python');
const python = process.env.SUREHAND_BUILD_PYTHON ?? (existsSync(venv) ? venv : 'python3');
const temp = mkdtempSync(join(tmpdir(), 'surehand-wheel-'));
try {
  const args = ['-m', 'pip', 'wheel', '--no-deps', '--disable-pip-version-check', '--quiet', '--wheel-dir', temp, REPO];
  const result = spawnSync(python, args, { stdio: 'inherit', timeout: 600_000 });
  if (result.status !== 0) {
    throw new Error(`${python} ${args.join(' ')} failed (${result.status ?? result.error})`);
  }
  const wheels = readdirSync(temp).filter((f) => /^surehand-.*\.whl$/.test(f));
  if (wheels.length !== 1) {
    throw new Error(`expected one surehand wheel, found ${JSON.stringify(readdirSync(temp))}`);
  }
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT);
  renameSync(join(temp, wheels[0]), join(OUT, wheels[0]));
  console.log(`wheel: server/${wheels[0]}`);
} finally {
  rmSync(temp, { recursive: true, force: true });
}
