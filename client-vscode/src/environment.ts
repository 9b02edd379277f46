/**
 * The extension's own Python environment (Node I/O, no `vscode`).
 *
 * The `.vsix` ships the server as a wheel (`server/surehand-*.whl`). On
 * first start, and whenever the shipped wheel changes, the extension makes
 * a virtual environment in its global storage with a Python 3.11 or newer
 * and installs the wheel there with pip (its dependencies come from PyPI).
 * The environment is built beside the old one and moved into place only
 * when complete, so a failed or interrupted install leaves nothing
 * half-made in use.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const MIN_PYTHON: readonly [number, number] = [3, 11];
const CHECK_TIMEOUT_MS = 20_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const STAMP = 'surehand-wheel.txt';

export type Found = { readonly ok: true; readonly python: string } | { readonly ok: false; readonly reason: string };

/** `[major, minor]` from `python -c 'import sys; print(*sys.version_info[:2])'`'s output. */
export function parseVersion(output: string): [number, number] | undefined {
  const match = /^(\d+) (\d+)\s*$/.exec(output.trim());
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
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
export function run(file: string, args: readonly string[], timeout: number, log?: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, [...args], { timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
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
    const version = parseVersion(await run(python, ['-c', 'import sys; print(*sys.version_info[:2])'], CHECK_TIMEOUT_MS));
    if (version === undefined) {
      return { ok: false, reason: 'not a Python' };
    }
    return recentEnough(version) ? { ok: true, python } : { ok: false, reason: `Python ${version.join('.')}, too old` };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** The wheel the extension ships, or undefined (a build from source without `npm run package`). */
export function shippedWheel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'server');
  const wheels = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.whl')) : [];
  return wheels.length === 1 ? path.join(dir, wheels[0]) : undefined;
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
  readonly log: (line: string) => void;
  readonly step: (message: string) => void;
}

/** Make the environment `envDir` from `base` with `wheel` installed; resolves with its interpreter. */
export async function buildEnvironment({ base, wheel, envDir, log, step }: Install): Promise<string> {
  const building = `${envDir}.new-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(path.dirname(envDir), { recursive: true });
  try {
    step('creating a virtual environment');
    log(`Creating a virtual environment with ${base} in ${envDir}`);
    try {
      await run(base, ['-m', 'venv', building], INSTALL_TIMEOUT_MS, log);
    } catch (error) {
      throw new Error(`${base} -m venv failed (${(error as Error).message}); on Debian and Ubuntu, install python3-venv`);
    }
    step('installing the server and its dependencies from PyPI');
    const python = venvPython(building);
    const pip = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel];
    log(`Installing ${path.basename(wheel)}: ${python} ${pip.join(' ')}`);
    try {
      await run(python, pip, INSTALL_TIMEOUT_MS, log);
    } catch (error) {
      throw new Error(`pip could not install the server (${(error as Error).message})`);
    }
    writeFileSync(path.join(building, STAMP), `${path.basename(wheel)}\n`);
    rmSync(envDir, { recursive: true, force: true });
    renameSync(building, envDir);
    return venvPython(envDir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}
