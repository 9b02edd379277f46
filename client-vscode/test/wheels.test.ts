import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadArgs, isTarget, NEWEST_PYTHON, supportedPythons, targetOf, TARGETS, type Target } from '../src/targets';
import { bundleFits, compareVersions, fits, parseWheelName, selectWheels, type PythonTags } from '../src/wheels';

const py = (minor: number, freeThreaded = false): PythonTags => ({ major: 3, minor, freeThreaded });

/** What a linux-x64 package carries (names as `pip download` leaves them), for Python 3.11 to 3.15. */
const LINUX = [
  'annotated_types-0.8.0-py3-none-any.whl',
  'openai-3.57.0-py3-none-any.whl',
  'ripgrep-14.1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
  'typing_extensions-4.16.0-py3-none-any.whl',
  'six-1.17.0-py2.py3-none-any.whl',
  ...[11, 12, 13, 14, 15].flatMap((m) => [
    `pydantic_core-2.50.5-cp3${m}-cp3${m}-manylinux_2_17_x86_64.manylinux2014_x86_64.whl`,
    `rapidfuzz-3.14.6-cp3${m}-cp3${m}-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl`,
    `jiter-0.19.0-cp3${m}-cp3${m}-manylinux_2_17_x86_64.manylinux2014_x86_64.whl`,
    `rpds_py-2026.9.1-cp3${m}-cp3${m}-manylinux_2_17_x86_64.manylinux2014_x86_64.whl`,
  ]),
];

describe('the platforms a package is built for', () => {
  it('are vsce targets, and each is found from where the extension runs', () => {
    expect(Object.keys(TARGETS).sort()).toEqual(['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-x64']);
    expect(targetOf('linux', 'x64')).toBe('linux-x64');
    expect(targetOf('linux', 'arm64')).toBe('linux-arm64');
    expect(targetOf('darwin', 'arm64')).toBe('darwin-arm64');
    expect(targetOf('win32', 'x64')).toBe('win32-x64');
    expect(targetOf('win32', 'arm64')).toBeUndefined(); // no wheels for it: the universal package's download
    expect(targetOf('freebsd', 'x64')).toBeUndefined();
    expect(isTarget('linux-x64')).toBe(true);
    expect(isTarget('toString')).toBe(false);
  });

  it('take the platform tags of the oldest systems VS Code runs on', () => {
    const linux = TARGETS['linux-x64'].tags;
    expect(linux[0]).toBe('manylinux_2_28_x86_64'); // rapidfuzz's wheels need 2.28
    expect(linux).toContain('manylinux_2_17_x86_64');
    expect(linux).toContain('manylinux2014_x86_64');
    expect(linux.some((t) => /manylinux_2_(29|3\d)/.test(t))).toBe(false); // newer than VS Code's glibc
    expect(TARGETS['linux-arm64'].tags.every((t) => t.endsWith('_aarch64'))).toBe(true);
    expect(TARGETS['darwin-arm64'].tags).toEqual(['macosx_11_0_arm64']); // pip adds universal2 and older macOS
    expect(TARGETS['win32-x64'].tags).toEqual(['win_amd64']);
  });

  it("download each supported Python's wheels, binary only", () => {
    expect(supportedPythons('>=3.11', [3, 15])).toEqual(['3.11', '3.12', '3.13', '3.14', '3.15']);
    expect(supportedPythons(' >= 3.12 ', [3, 13])).toEqual(['3.12', '3.13']);
    expect(() => supportedPythons('>=3.11,<4', [3, 15])).toThrow(/only ">=3.N"/);
    expect(NEWEST_PYTHON).toEqual([3, 15]);
    const args = downloadArgs('darwin-x64', '3.13', '/tmp/d', '/s/surehand-0.1.0-py3-none-any.whl');
    expect(args.slice(0, 4)).toEqual(['-m', 'pip', 'download', '--only-binary=:all:']);
    expect(args.join(' ')).toContain('--platform macosx_11_0_x86_64 --python-version 3.13 --implementation cp');
    expect(args.at(-1)).toBe('/s/surehand-0.1.0-py3-none-any.whl');
  });

  it('are the same table for the packaging script (it loads src/targets.ts itself)', () => {
    const script = "import('./scripts/wheel.mjs').then((m) => m.loadTargets()).then((t) => console.log(JSON.stringify(t.TARGETS)))";
    const loaded = JSON.parse(execFileSync('node', ['--input-type=module', '-e', script], { cwd: join(__dirname, '..') }).toString()) as Record<Target, unknown>;
    expect(loaded).toEqual(JSON.parse(JSON.stringify(TARGETS)));
  });
});

describe('choosing the wheels for a Python', () => {
  it('reads a wheel name', () => {
    expect(parseWheelName('/x/Pydantic_Core-2.50.5-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl')).toEqual({
      file: 'Pydantic_Core-2.50.5-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
      name: 'pydantic-core',
      version: '2.50.5',
      python: ['cp312'],
      abi: ['cp312'],
      platform: ['manylinux_2_17_x86_64', 'manylinux2014_x86_64'],
    });
    expect(parseWheelName('pkg-1.0-1build-py3-none-any.whl')?.version).toBe('1.0');
    expect(parseWheelName('manifest.json')).toBeUndefined();
  });

  it('fits pure wheels everywhere, abi3 from its version on, the others to their version only', () => {
    const wheel = (file: string) => parseWheelName(file)!;
    expect(fits(wheel('six-1.17.0-py2.py3-none-any.whl'), py(11))).toBe(true);
    expect(fits(wheel('x-1-py38-none-any.whl'), py(12))).toBe(true);
    expect(fits(wheel('x-1-cp312-cp312-win_amd64.whl'), py(12))).toBe(true);
    expect(fits(wheel('x-1-cp312-cp312-win_amd64.whl'), py(13))).toBe(false);
    expect(fits(wheel('x-1-cp39-abi3-win_amd64.whl'), py(14))).toBe(true);
    expect(fits(wheel('x-1-cp313-abi3-win_amd64.whl'), py(12))).toBe(false);
    // A free-threaded build has its own ABI: no abi3, no cp314 wheel.
    expect(fits(wheel('x-1-cp314-cp314-win_amd64.whl'), py(14, true))).toBe(false);
    expect(fits(wheel('x-1-cp314-cp314t-win_amd64.whl'), py(14, true))).toBe(true);
    expect(fits(wheel('x-1-cp39-abi3-win_amd64.whl'), py(14, true))).toBe(false);
  });

  it('picks one wheel per distribution, the newest that fits', () => {
    const { chosen, missing } = selectWheels([...LINUX, 'openai-3.9.0-py3-none-any.whl'], py(13));
    expect(missing).toEqual([]);
    expect(chosen.get('pydantic-core')).toBe('pydantic_core-2.50.5-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl');
    expect(chosen.get('openai')).toBe('openai-3.57.0-py3-none-any.whl'); // 3.57 > 3.9
    expect(chosen.get('ripgrep')).toMatch(/^ripgrep-14\.1\.0-py3-none-manylinux/);
    expect(chosen.size).toBe(9);
    expect(compareVersions('2.10.1', '2.9')).toBeGreaterThan(0);
    expect(compareVersions('1.0', '1.0.0')).toBe(0);
  });

  it('names what is missing for a Python the package was not built for', () => {
    expect(selectWheels(LINUX, py(16)).missing).toEqual(['jiter', 'pydantic-core', 'rapidfuzz', 'rpds-py']);
    expect(selectWheels(LINUX, py(10)).missing).toEqual(['jiter', 'pydantic-core', 'rapidfuzz', 'rpds-py']);
  });

  it('installs offline only on its own platform, with a Python it carries wheels for', () => {
    const manifest = { target: 'linux-x64' as const, pythons: ['3.11', '3.12', '3.13', '3.14', '3.15'] };
    for (const minor of [11, 12, 13, 14, 15]) {
      expect(bundleFits(manifest, LINUX, py(minor), 'linux-x64')).toEqual({ ok: true, wheels: 9 });
    }
    expect(bundleFits(manifest, LINUX, py(12), 'linux-arm64')).toEqual({
      ok: false,
      why: 'this .vsix carries wheels for linux-x64, not for linux-arm64',
    });
    expect(bundleFits(manifest, LINUX, py(12), undefined)).toMatchObject({ ok: false, why: expect.stringMatching(/not for this platform/) as string });
    expect(bundleFits(manifest, LINUX, py(16), 'linux-x64')).toEqual({
      ok: false,
      why: 'this .vsix carries no wheels for Python 3.16 (it carries 3.11, 3.12, 3.13, 3.14, 3.15): none for jiter, pydantic-core, rapidfuzz, rpds-py',
    });
    expect(bundleFits(manifest, LINUX, py(14, true), 'linux-x64')).toEqual({
      ok: false,
      why: 'this .vsix carries no wheels for a free-threaded Python (3.14t)',
    });
  });
});
