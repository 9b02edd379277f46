/**
 * What the .vsix carries of Python, in client-vscode/server/:
 *
 * - the server's wheel, built from the repository's pyproject.toml
 *   (`pip wheel --no-deps`), which every package ships;
 * - for a per-platform package (`--target`, or SUREHAND_TARGET as
 *   scripts/package.mjs sets it for vsce's prepublish step): its dependency
 *   wheels in server/wheels/, downloaded for the target's platform tags and
 *   each Python version the server supports (`pip download
 *   --only-binary=:all: --platform … --python-version …`, see
 *   src/targets.ts), with a manifest.json, and pip itself as a wheel in
 *   server/pip/. The extension installs from them with no network.
 *
 * Without a target (the universal package) server/wheels/ and server/pip/
 * are removed: that package downloads the dependencies on first start.
 * The Python that builds and downloads: SUREHAND_BUILD_PYTHON, else the
 * repository's .venv, else python3 (pip's cache makes a second run quick).
 * Usage: node scripts/wheel.mjs [--target linux-x64|linux-arm64|darwin-x64|darwin-arm64|win32-x64]
 */

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO = resolve(CLIENT, '..');
const OUT = join(CLIENT, 'server');
const WHEELS = join(OUT, 'wheels');
const PIP = join(OUT, 'pip');

/** A module of the extension's own that imports nothing but types (src/targets.ts, src/wheels.ts), as a module here. */
async function loadSource(name) {
  const source = readFileSync(join(CLIENT, 'src', name), 'utf8');
  const { code } = transformSync(source, { loader: 'ts', format: 'esm' });
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

/** src/targets.ts, the extension's own table of targets. */
export function loadTargets() {
  return loadSource('targets.ts');
}

function buildPython() {
  const venv = join(REPO, '.venv', 'bin', 'python');
  return process.env.SUREHAND_BUILD_PYTHON ?? (existsSync(venv) ? venv : 'python3');
}

function pipSync(python, args) {
  const result = spawnSync(python, args, { stdio: 'inherit', timeout: 600_000 });
  if (result.status !== 0) {
    throw new Error(`${python} ${args.join(' ')} failed (${result.status ?? result.error})`);
  }
}

/** Run pip; resolves when it succeeded, rejects with its last lines otherwise. */
function pipAsync(python, args) {
  return new Promise((ok, fail) => {
    const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    child.stdout.on('data', (d) => (said += d));
    child.stderr.on('data', (d) => (said += d));
    const timer = setTimeout(() => child.kill(), 900_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) {
        ok();
      } else {
        fail(new Error(`pip ${args.slice(2, 3).join(' ')} failed (${code}):\n${said.trim().split('\n').slice(-8).join('\n')}`));
      }
    });
  });
}

/** The server's wheel, built into server/ (other surehand wheels there removed). */
function buildServerWheel(python) {
  const temp = mkdtempSync(join(tmpdir(), 'surehand-wheel-'));
  try {
    pipSync(python, ['-m', 'pip', 'wheel', '--no-deps', '--disable-pip-version-check', '--quiet', '--wheel-dir', temp, REPO]);
    const wheels = readdirSync(temp).filter((f) => /^surehand-.*\.whl$/.test(f));
    if (wheels.length !== 1) {
      throw new Error(`expected one surehand wheel, found ${JSON.stringify(readdirSync(temp))}`);
    }
    mkdirSync(OUT, { recursive: true });
    for (const old of readdirSync(OUT).filter((f) => f.endsWith('.whl'))) {
      rmSync(join(OUT, old));
    }
    renameSync(join(temp, wheels[0]), join(OUT, wheels[0]));
    console.log(`wheel: server/${wheels[0]}`);
    return join(OUT, wheels[0]);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The dependency wheels of `wheel` for `target`, every supported Python, and pip, into server/wheels and server/pip. */
async function downloadDependencies(python, wheel, target, targets) {
  const pyproject = readFileSync(join(REPO, 'pyproject.toml'), 'utf8');
  const requires = /^requires-python\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
  if (requires === undefined) {
    throw new Error('pyproject.toml has no requires-python');
  }
  const pythons = targets.supportedPythons(requires);
  const temp = mkdtempSync(join(tmpdir(), 'surehand-deps-'));
  try {
    const started = Date.now();
    // One download per Python version, side by side (the network is the bottleneck); merged after.
    await Promise.all(
      pythons.map((version) => pipAsync(python, targets.downloadArgs(target, version, join(temp, version), wheel))),
    );
    mkdirSync(WHEELS, { recursive: true });
    for (const version of pythons) {
      for (const file of readdirSync(join(temp, version))) {
        if (!file.startsWith('surehand-') && !existsSync(join(WHEELS, file))) {
          renameSync(join(temp, version, file), join(WHEELS, file));
        }
      }
    }
    // What the extension will check before installing offline: every dependency has a wheel for each Python.
    const { selectWheels } = await loadSource('wheels.ts');
    const carried = readdirSync(WHEELS);
    for (const version of pythons) {
      const [major, minor] = version.split('.').map(Number);
      const { missing } = selectWheels(carried, { major, minor, freeThreaded: false });
      if (missing.length > 0) {
        throw new Error(`no ${target} wheel for Python ${version} of ${missing.join(', ')}`);
      }
    }
    writeFileSync(join(WHEELS, 'manifest.json'), `${JSON.stringify({ target, pythons }, null, 2)}\n`);
    mkdirSync(PIP, { recursive: true });
    pipSync(python, ['-m', 'pip', 'download', '--only-binary=:all:', '--no-deps', '--disable-pip-version-check', '--quiet', '--dest', PIP, 'pip']);
    const files = readdirSync(WHEELS).filter((f) => f.endsWith('.whl'));
    const size = [...files.map((f) => join(WHEELS, f)), ...readdirSync(PIP).map((f) => join(PIP, f))]
      .reduce((n, f) => n + statSync(f).size, 0);
    console.log(
      `wheels for ${target}, Python ${pythons.join(', ')}: ${files.length} in server/wheels and ` +
        `${readdirSync(PIP).join(', ')} in server/pip, ${(size / 2 ** 20).toFixed(1)} MiB, ` +
        `downloaded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

async function main() {
  const at = process.argv.indexOf('--target');
  const target = at >= 0 ? process.argv[at + 1] : process.env.SUREHAND_TARGET || undefined;
  const targets = await loadTargets();
  if (target !== undefined && !targets.isTarget(target)) {
    throw new Error(`unknown target ${target} (known: ${Object.keys(targets.TARGETS).join(', ')})`);
  }
  const python = buildPython();
  const wheel = buildServerWheel(python);
  rmSync(WHEELS, { recursive: true, force: true });
  rmSync(PIP, { recursive: true, force: true });
  if (target === undefined) {
    console.log('universal: no dependency wheels (they are downloaded on first start)');
    return;
  }
  await downloadDependencies(python, wheel, target, targets);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`wheel.mjs: ${error.message}`);
    process.exit(1);
  });
}
