/**
 * Packages the extension: the bundle (esbuild) and the server's wheel
 * (`vscode:prepublish`), then the .vsix, whose size and file count it
 * prints. Usage: node scripts/package.mjs [--out FILE]
 */

import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
const at = process.argv.indexOf('--out');
const out = resolve(at >= 0 ? process.argv[at + 1] : join(CLIENT, `surehand-${version}.vsix`));

const vsce = join(CLIENT, 'node_modules', '.bin', 'vsce');
const result = spawnSync(vsce, ['package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out], { cwd: CLIENT, stdio: 'inherit' });
if (result.status !== 0) {
  process.exit(result.status ?? 1);
}
console.log(`${out}: ${entries(out)} files, ${(statSync(out).size / 1024).toFixed(0)} KiB`);

/** The number of entries in a zip file (its end of central directory record). */
function entries(file) {
  const data = readFileSync(file);
  for (let i = data.length - 22; i >= Math.max(0, data.length - 65_557); i--) {
    if (data.readUInt32LE(i) === 0x06054b50) {
      return data.readUInt16LE(i + 10);
    }
  }
  throw new Error(`${file} is not a zip file`);
}
