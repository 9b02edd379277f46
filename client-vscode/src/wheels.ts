/**
 * Which of the wheels a `.vsix` carries fit a Python: the check made before
 * an offline install. Free of the `vscode` module.
 *
 * A per-platform `.vsix` carries `server/wheels/`: the server's dependency
 * wheels for its target and every supported Python version, and
 * `manifest.json` ({target, pythons}). The wheels fit when the `.vsix` was
 * built for this platform and every dependency has a wheel this Python can
 * load (its tags, PEP 425: `py3-none-any`, `cp312-cp312-…`, `cp312-abi3-…`).
 * Then pip installs them with `--no-index` (no network); otherwise the
 * extension says why and installs from PyPI.
 */

import type { Target } from './targets';

export interface WheelName {
  readonly file: string;
  /** The distribution's name, normalized (PEP 503: lower case, runs of `-_.` as `-`). */
  readonly name: string;
  readonly version: string;
  readonly python: readonly string[];
  readonly abi: readonly string[];
  readonly platform: readonly string[];
}

/** A Python as the wheels see it. */
export interface PythonTags {
  readonly major: number;
  readonly minor: number;
  /** A free-threaded build (3.13t, 3.14t …): its extension modules have their own ABI (`cp314t`). */
  readonly freeThreaded: boolean;
}

export interface Manifest {
  readonly target: Target;
  readonly pythons: readonly string[];
}

/** `name-version(-build)?-python-abi-platform.whl`, or undefined. */
export function parseWheelName(file: string): WheelName | undefined {
  const base = file.replace(/^.*[\\/]/, '');
  const match = /^([^-]+)-([^-]+)(?:-\d[^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl$/.exec(base);
  if (match === null) {
    return undefined;
  }
  const [, name, version, python, abi, platform] = match;
  return {
    file: base,
    name: name.toLowerCase().replace(/[-_.]+/g, '-'),
    version,
    python: python.split('.'),
    abi: abi.split('.'),
    platform: platform.split('.'),
  };
}

/** Whether `python` can load `wheel` (its platform tags are the target's: the package chose them). */
export function fits(wheel: WheelName, python: PythonTags): boolean {
  const cp = `cp${python.major}${python.minor}`;
  const older = (tag: string, prefix: string): boolean => {
    const m = new RegExp(`^${prefix}(\\d)(\\d+)$`).exec(tag);
    return m !== null && Number(m[1]) === python.major && Number(m[2]) <= python.minor;
  };
  return wheel.abi.some((abi) => {
    if (abi === 'none') {
      return wheel.python.some((tag) => tag === `py${python.major}` || older(tag, 'py') || tag === cp);
    }
    if (abi === 'abi3') {
      return !python.freeThreaded && wheel.python.some((tag) => older(tag, 'cp'));
    }
    return abi === `${cp}${python.freeThreaded ? 't' : ''}` && wheel.python.includes(cp);
  });
}

export interface Selection {
  /** The newest fitting wheel of each distribution, by name. */
  readonly chosen: ReadonlyMap<string, string>;
  /** The distributions with no wheel that fits. */
  readonly missing: readonly string[];
}

/** Of `files`, the wheel each distribution would install for `python`. */
export function selectWheels(files: readonly string[], python: PythonTags): Selection {
  const byName = new Map<string, WheelName[]>();
  for (const file of files) {
    const wheel = parseWheelName(file);
    if (wheel !== undefined) {
      byName.set(wheel.name, [...(byName.get(wheel.name) ?? []), wheel]);
    }
  }
  const chosen = new Map<string, string>();
  const missing: string[] = [];
  for (const [name, wheels] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    const fitting = wheels.filter((w) => fits(w, python)).sort((a, b) => compareVersions(b.version, a.version));
    if (fitting.length === 0) {
      missing.push(name);
    } else {
      chosen.set(name, fitting[0].file);
    }
  }
  return { chosen, missing };
}

/** Release versions compared part by part ("2.10.1" > "2.9"); what is not a number compares as text. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    const order = Number.isNaN(nx) || Number.isNaN(ny) ? x.localeCompare(y) : nx - ny;
    if (order !== 0) {
      return order;
    }
  }
  return 0;
}

export type Fit = { readonly ok: true; readonly wheels: number } | { readonly ok: false; readonly why: string };

/**
 * Whether the carried wheels can make the environment here, without the
 * network: the `.vsix`'s target is this platform (`here`, undefined when no
 * target runs here) and every dependency has a wheel for `python`.
 */
export function bundleFits(manifest: Manifest, files: readonly string[], python: PythonTags, here: Target | undefined): Fit {
  const version = `${python.major}.${python.minor}${python.freeThreaded ? 't' : ''}`;
  if (manifest.target !== here) {
    return { ok: false, why: `this .vsix carries wheels for ${manifest.target}, not for ${here ?? 'this platform'}` };
  }
  if (python.freeThreaded) {
    return { ok: false, why: `this .vsix carries no wheels for a free-threaded Python (${version})` };
  }
  const { chosen, missing } = selectWheels(files, python);
  if (missing.length > 0 || chosen.size === 0) {
    const carried = manifest.pythons.length > 0 ? ` (it carries ${manifest.pythons.join(', ')})` : '';
    return { ok: false, why: `this .vsix carries no wheels for Python ${version}${carried}: none for ${missing.join(', ') || 'anything'}` };
  }
  return { ok: true, wheels: chosen.size };
}
