/**
 * Packages the extension: the bundle (esbuild) and what it carries of
 * Python (scripts/wheel.mjs, run by vsce as `vscode:prepublish`), then the
 * .vsix, whose size and file count it prints.
 *
 * Usage:
 *   node scripts/package.mjs [--out FILE]                 the universal package (dependencies downloaded on first start)
 *   node scripts/package.mjs --target linux-x64 [--out FILE]   one per-platform package (starts offline)
 *   node scripts/package.mjs --all                        the five per-platform packages, then a table of their sizes
 */

import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTargets } from './wheel.mjs';

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
const vsce = join(CLIENT, 'node_modules', '.bin', 'vsce');

function option(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Package for `target` (undefined: universal) into `out`; returns its size and entry count. */
function packageOne(target, out) {
  const args = ['package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out];
  if (target !== undefined) {
    args.push('--target', target);
  }
  // vsce runs vscode:prepublish (compile, then scripts/wheel.mjs), which reads the target from here.
  const env = { ...process.env, SUREHAND_TARGET: target ?? '' };
  const result = spawnSync(vsce, args, { cwd: CLIENT, stdio: 'inherit', env });
  if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
  const size = statSync(out).size;
  console.log(`${out}: ${entries(out)} files, ${(size / 1024).toFixed(0)} KiB`);
  return { target: target ?? 'universal', out, size, files: entries(out) };
}

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

const targets = await loadTargets();
if (process.argv.includes('--all')) {
  const made = Object.keys(targets.TARGETS).map((target) => packageOne(target, join(CLIENT, `surehand-${target}-${version}.vsix`)));
  console.log('\npackage                          files      size');
  for (const { out, files, size } of made) {
    console.log(`${out.split('/').pop().padEnd(32)} ${String(files).padStart(5)} ${(size / 2 ** 20).toFixed(1).padStart(7)} MiB`);
  }
} else {
  const target = option('--target');
  if (target !== undefined && !targets.isTarget(target)) {
    console.error(`unknown target ${target} (known: ${Object.keys(targets.TARGETS).join(', ')})`);
    process.exit(2);
  }
  const name = target === undefined ? `surehand-${version}.vsix` : `surehand-${target}-${version}.vsix`;
  packageOne(target, resolve(option('--out') ?? join(CLIENT, name)));
}
