/**
 * The extension's own Python environment (Node I/O, no `vscode`).
 *
 * The `.vsix` ships the server as a wheel (`server/surehand-*.whl`); a
 * per-platform `.vsix` also carries its dependencies' wheels for every
 * supported Python (`server/wheels/`, see `wheels.ts`) and pip as a wheel
 * (`server/pip/`). On first start, and whenever the shipped wheel changes,
 * the extension makes a virtual environment in its global storage with a
 * Python 3.11 or newer:
 *
 * - offline, when the carried wheels fit this platform and Python: `venv
 *   --without-pip`, then the carried pip, run from its wheel, installs the
 *   server with `--no-index` from the carried wheels (no network; pip's own
 *   configuration and `PIP_*` variables left out, so nothing the machine says
 *   sends it to an index);
 * - online otherwise (the universal `.vsix`, another Python, or an offline
 *   install that failed): pip installs the server and fetches its
 *   dependencies from the index the machine's pip configuration names
 *   (PyPI by default), and the reason is said.
 *
 * The environment is built beside the old one and moved into place only
 * when complete, so a failed or interrupted install leaves nothing
 * half-made in use.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Target } from './targets';
import { count } from './words';
import { bundleFits, type Manifest, type PythonTags } from './wheels';

export const MIN_PYTHON: readonly [number, number] = [3, 11];
const CHECK_TIMEOUT_MS = 20_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const STAMP = 'surehand-wheel.txt';
/** Prints "3 12 0": the version, and 1 for a free-threaded build. */
const PROBE = 'import sys, sysconfig; print(*sys.version_info[:2], int(bool(sysconfig.get_config_var("Py_GIL_DISABLED"))))';

export type Found =
  | { readonly ok: true; readonly python: string; readonly tags: PythonTags }
  | { readonly ok: false; readonly reason: string };

/** `[major, minor]` from the probe's output ("3 12" or "3 12 0"). */
export function parseVersion(output: string): [number, number] | undefined {
  const tags = parseProbe(output);
  return tags === undefined ? undefined : [tags.major, tags.minor];
}

/** The Python's tags from the probe's output ("3 12 0"; the third number is 1 for a free-threaded build). */
export function parseProbe(output: string): PythonTags | undefined {
  const match = /^(\d+) (\d+)(?: ([01]))?\s*$/.exec(output.trim());
  return match === null ? undefined : { major: Number(match[1]), minor: Number(match[2]), freeThreaded: match[3] === '1' };
}

export function recentEnough(version: readonly [number, number]): boolean {
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

/** The interpreter inside the virtual environment `dir`. */
export function venvPython(dir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');
}

/** The base interpreters to try when `surehand.python` is not set. */
export function basePythons(setting: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  if (setting !== undefined && setting.trim() !== '') {
    return [setting.trim()];
  }
  return platform === 'win32' ? ['py', 'python', 'python3'] : ['python3', 'python'];
}

/** Run `file args`; resolves with its stdout, or rejects with an error whose message ends with stderr's last lines. */
export function run(
  file: string,
  args: readonly string[],
  timeout: number,
  log?: (line: string) => void,
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, [...args], { timeout, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) {
        resolve(stdout);
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      const tail = stderr.trim().split(/\r?\n/).slice(-3).join(' ').trim();
      reject(new Error(code === 'ENOENT' ? 'not found' : tail || error.message));
    });
    if (log !== undefined) {
      child.stdout?.on('data', (chunk: Buffer) => chunk.toString().split(/\r?\n/).filter(Boolean).forEach(log));
      child.stderr?.on('data', (chunk: Buffer) => chunk.toString().split(/\r?\n/).filter(Boolean).forEach(log));
    }
  });
}

/** Whether `python` is a Python 3.11+ (the reason when not). */
export async function checkPython(python: string): Promise<Found> {
  try {
    const tags = parseProbe(await run(python, ['-c', PROBE], CHECK_TIMEOUT_MS));
    if (tags === undefined) {
      return { ok: false, reason: 'not a Python' };
    }
    const version: [number, number] = [tags.major, tags.minor];
    return recentEnough(version) ? { ok: true, python, tags } : { ok: false, reason: `Python ${version.join('.')}, too old` };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** The wheel the extension ships, or undefined (a build from source without `npm run package`). */
export function shippedWheel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'server');
  const wheels = existsSync(dir) ? readdirSync(dir).filter((f) => /^surehand-.*\.whl$/.test(f)) : [];
  return wheels.length === 1 ? path.join(dir, wheels[0]) : undefined;
}

/** The dependency wheels and pip a per-platform `.vsix` carries. */
export interface Bundle {
  readonly dir: string;
  readonly manifest: Manifest;
  readonly files: readonly string[];
  readonly pip: string;
}

/** The carried wheels, or undefined (the universal `.vsix` carries none). */
export function shippedBundle(extensionPath: string): Bundle | undefined {
  const dir = path.join(extensionPath, 'server', 'wheels');
  const pipDir = path.join(extensionPath, 'server', 'pip');
  try {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    const pips = readdirSync(pipDir).filter((f) => /^pip-.*\.whl$/.test(f));
    const files = readdirSync(dir).filter((f) => f.endsWith('.whl'));
    return pips.length === 1 && typeof manifest.target === 'string' ? { dir, manifest, files, pip: path.join(pipDir, pips[0]) } : undefined;
  } catch {
    return undefined;
  }
}

/** How the environment will be made: from the carried wheels (offline), or with downloads (and why). */
export type Plan =
  | { readonly offline: true; readonly bundle: Bundle; readonly wheels: number }
  | { readonly offline: false; readonly bundle: Bundle | undefined; readonly why: string };

export function installPlan(bundle: Bundle | undefined, python: PythonTags, here: Target | undefined): Plan {
  if (bundle === undefined) {
    return { offline: false, bundle, why: 'this .vsix carries no dependency wheels (the universal package)' };
  }
  const fit = bundleFits(bundle.manifest, bundle.files, python, here);
  return fit.ok ? { offline: true, bundle, wheels: fit.wheels } : { offline: false, bundle, why: fit.why };
}

/** The environment for an offline pip: without `PIP_*`, `PYTHONPATH` or any pip configuration file. */
export function offlineEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!/^PIP_/i.test(name) && !/^PYTHON(PATH|HOME|USERBASE|STARTUP)$/i.test(name)) {
      out[name] = value;
    }
  }
  return { ...out, PIP_CONFIG_FILE: os.devNull };
}

/** The environment's interpreter when it holds exactly `wheel` already, else undefined. */
export function readyEnvironment(envDir: string, wheel: string): string | undefined {
  try {
    const stamp = readFileSync(path.join(envDir, STAMP), 'utf8').trim();
    const python = venvPython(envDir);
    return stamp === path.basename(wheel) && existsSync(python) ? python : undefined;
  } catch {
    return undefined;
  }
}

export interface Install {
  readonly base: string;
  readonly wheel: string;
  readonly envDir: string;
  readonly plan: Plan;
  readonly log: (line: string) => void;
  readonly step: (message: string) => void;
}

/** What a finished install did. */
export interface Built {
  readonly python: string;
  /** Made from the carried wheels alone. */
  readonly offline: boolean;
  /** Why it downloaded (undefined when offline). */
  readonly why?: string;
  /** The packages pip installed. */
  readonly packages: number;
}

/** Make the environment `envDir` from `base` with `wheel` installed. */
export async function buildEnvironment({ base, wheel, envDir, plan, log, step }: Install): Promise<Built> {
  const building = `${envDir}.new-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(path.dirname(envDir), { recursive: true });
  const bundle = plan.bundle;
  try {
    step('creating a virtual environment');
    // With a carried pip, the environment needs none of its own (ensurepip takes seconds).
    const venv = bundle === undefined ? ['-m', 'venv', building] : ['-m', 'venv', '--without-pip', building];
    log(`Creating a virtual environment: ${base} ${venv.join(' ')}`);
    try {
      await run(base, venv, INSTALL_TIMEOUT_MS, log);
    } catch (error) {
      throw new Error(`${base} -m venv failed (${(error as Error).message}); on Debian and Ubuntu, install python3-venv`);
    }
    const python = venvPython(building);
    // No byte-compiling now: it doubles pip's time; compileLater does it once the server runs.
    const common = ['install', '--disable-pip-version-check', '--no-input', '--no-warn-script-location', '--no-compile'];
    const pip = (args: string[]): string[] => (bundle === undefined ? ['-m', 'pip', ...args] : [path.join(bundle.pip, 'pip'), ...args]);
    let built: Built | undefined;
    if (plan.offline) {
      step(`installing ${count(plan.wheels + 1, 'package')} offline`);
      const args = pip([...common, '--no-index', '--no-cache-dir', '--find-links', plan.bundle.dir, wheel]);
      log(`Installing ${path.basename(wheel)} offline: ${python} ${args.join(' ')}`);
      try {
        const out = await run(python, args, INSTALL_TIMEOUT_MS, log, offlineEnv(process.env));
        built = { python, offline: true, packages: installedCount(out) };
      } catch (error) {
        log(`The wheels in the .vsix did not install (${(error as Error).message}); downloading instead.`);
        built = undefined;
      }
    }
    if (built === undefined) {
      const why = plan.offline ? 'the wheels in the .vsix did not install' : plan.why;
      step('downloading its dependencies from PyPI');
      const links = bundle === undefined ? [] : ['--find-links', bundle.dir];
      const args = pip([...common, ...links, wheel]);
      log(`Installing ${path.basename(wheel)} with downloads (${why}): ${python} ${args.join(' ')}`);
      try {
        const out = await run(python, args, INSTALL_TIMEOUT_MS, log);
        built = { python, offline: false, why, packages: installedCount(out) };
      } catch (error) {
        throw new Error(`pip could not install the server (${(error as Error).message})`);
      }
    }
    writeFileSync(path.join(building, STAMP), `${path.basename(wheel)}\n`);
    rmSync(envDir, { recursive: true, force: true });
    renameSync(building, envDir);
    return { ...built, python: venvPython(envDir) };
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** Byte-compile the environment's modules, on every core (after the first start: no one waits for it). */
export async function compileLater(python: string, envDir: string, log: (line: string) => void): Promise<void> {
  const lib = path.join(envDir, process.platform === 'win32' ? 'Lib' : 'lib');
  const started = Date.now();
  try {
    await run(python, ['-m', 'compileall', '-q', '-j', '0', lib], INSTALL_TIMEOUT_MS);
    log(`Byte-compiled the environment's modules in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  } catch (error) {
    log(`Byte-compiling the environment's modules failed (${(error as Error).message}); they compile as they are imported.`);
  }
}

/** The number of packages in pip's "Successfully installed a-1 b-2" line (0 without one). */
export function installedCount(output: string): number {
  const line = output.split(/\r?\n/).find((l) => l.startsWith('Successfully installed '));
  return line === undefined ? 0 : line.slice('Successfully installed '.length).trim().split(/\s+/).length;
}
