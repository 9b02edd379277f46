import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basePythons,
  buildEnvironment,
  checkPython,
  installedCount,
  installPlan,
  offlineEnv,
  parseProbe,
  parseVersion,
  readyEnvironment,
  recentEnough,
  shippedBundle,
  shippedWheel,
  venvPython,
  type Plan,
} from '../src/environment';
import { targetOf } from '../src/targets';

describe('finding a Python for the environment', () => {
  it('reads the version and wants 3.11 or newer', () => {
    expect(parseVersion('3 12\n')).toEqual([3, 12]);
    expect(parseVersion('3 13 1')).toEqual([3, 13]);
    expect(parseProbe('3 13 1')).toEqual({ major: 3, minor: 13, freeThreaded: true });
    expect(parseProbe('3 12 0')).toEqual({ major: 3, minor: 12, freeThreaded: false });
    expect(parseVersion('Python 3.12')).toBeUndefined();
    expect(recentEnough([3, 11])).toBe(true);
    expect(recentEnough([3, 10])).toBe(false);
    expect(recentEnough([4, 0])).toBe(true);
  });

  it('tries the setting alone, else python3 then python', () => {
    expect(basePythons('/opt/py/bin/python3.12', 'linux')).toEqual(['/opt/py/bin/python3.12']);
    expect(basePythons('', 'linux')).toEqual(['python3', 'python']);
    expect(basePythons(undefined, 'win32')).toEqual(['py', 'python', 'python3']);
    expect(venvPython('/s/env', 'linux')).toBe('/s/env/bin/python');
  });

  it('says why an interpreter will not do', async () => {
    expect(await checkPython('surehand-no-such-python')).toEqual({ ok: false, reason: 'not found' });
    expect(await checkPython('/bin/true')).toEqual({ ok: false, reason: 'not a Python' });
    const found = await checkPython('python3'); // the machine's own, 3.11+ as the project needs
    expect(found).toMatchObject({ ok: true, python: 'python3', tags: { major: 3, freeThreaded: false } });
  });
});

/** Writes a wheel of `name` (module `<name>_probe`), requiring `requires` when given. */
function makeWheel(dir: string, name: string, value: number, requires?: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-1.0-py3-none-any.whl`);
  const write = [
    'import sys, zipfile',
    'name, value, requires = sys.argv[2], sys.argv[3], sys.argv[4]',
    'meta = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n" + (f"Requires-Dist: {requires}\\n" if requires else "")',
    'w = zipfile.ZipFile(sys.argv[1], "w")',
    'w.writestr(f"{name.removesuffix(\'_probe\')}_probe.py", f"VALUE = {value}\\n")',
    'w.writestr(f"{name}-1.0.dist-info/METADATA", meta)',
    'w.writestr(f"{name}-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")',
    'w.writestr(f"{name}-1.0.dist-info/RECORD", "")',
    'w.close()',
  ].join('\n');
  execFileSync('python3', ['-c', write, file, name, String(value), requires ?? '']);
  return file;
}

/** The pip wheel of the machine's Python (ensurepip's, or Debian's copy), for a carried pip. */
function machinePip(): string | undefined {
  const find = "import ensurepip, glob, os; print(*glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), '_bundled', 'pip-*.whl')) + glob.glob('/usr/share/python-wheels/pip-*.whl'))";
  return execFileSync('python3', ['-c', find]).toString().trim().split(' ').find((f) => f.endsWith('.whl'));
}

const quiet = { log: () => undefined, step: () => undefined };

describe('the environment from the shipped wheel', () => {
  let temp: string;
  let wheel: string;
  const universal: Plan = { offline: false, bundle: undefined, why: 'this .vsix carries no dependency wheels (the universal package)' };

  beforeAll(() => {
    temp = mkdtempSync(join(tmpdir(), 'surehand-env-test-'));
    // A real wheel with no dependencies, so pip installs it offline.
    wheel = makeWheel(join(temp, 'ext', 'server'), 'surehand', 42);
  });

  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('finds the one wheel the extension ships', () => {
    expect(shippedWheel(join(temp, 'ext'))).toBe(wheel);
    expect(shippedWheel(join(temp, 'nowhere'))).toBeUndefined();
    expect(shippedBundle(join(temp, 'ext'))).toBeUndefined(); // the universal package
    expect(installPlan(undefined, { major: 3, minor: 12, freeThreaded: false }, 'linux-x64')).toEqual(universal);
  });

  it('makes a virtual environment with the wheel in it, and knows it is ready', async () => {
    const envDir = join(temp, 'storage', 'env');
    const steps: string[] = [];
    const built = await buildEnvironment({ base: 'python3', wheel, envDir, plan: universal, log: () => undefined, step: (s) => steps.push(s) });
    expect(built).toEqual({ python: venvPython(envDir), offline: false, why: universal.why, packages: 1 });
    expect(execFileSync(built.python, ['-c', 'import surehand_probe; print(surehand_probe.VALUE)']).toString().trim()).toBe('42');
    expect(steps).toEqual([
      'creating a virtual environment',
      'downloading its dependencies from PyPI',
    ]);
    expect(readyEnvironment(envDir, wheel)).toBe(built.python);
    // Another wheel (an update of the extension): not ready, to be built again.
    expect(readyEnvironment(envDir, join(temp, 'surehand-2.0-py3-none-any.whl'))).toBeUndefined();
  }, 120_000);

  it('fails with a clear error and leaves the working environment alone', async () => {
    const envDir = join(temp, 'storage', 'env');
    mkdirSync(envDir, { recursive: true });
    writeFileSync(join(envDir, 'marker'), 'old');
    const broken = buildEnvironment({ base: 'python3', wheel: join(temp, 'missing.whl'), envDir, plan: universal, ...quiet });
    await expect(broken).rejects.toThrow(/pip could not install the server/);
    expect(existsSync(join(envDir, 'marker'))).toBe(true);
    const noPython = buildEnvironment({ base: 'surehand-no-such-python', wheel, envDir, plan: universal, ...quiet });
    await expect(noPython).rejects.toThrow(/surehand-no-such-python -m venv failed \(not found\)/);
    expect(existsSync(`${envDir}.new-${process.pid}`)).toBe(false);
  }, 120_000);

  it("counts pip's installed packages, and keeps pip's settings from an offline install", () => {
    expect(installedCount('Processing ./a.whl\nSuccessfully installed dep-1.0 surehand-1.0\n')).toBe(2);
    expect(installedCount('Requirement already satisfied')).toBe(0);
    const env = offlineEnv({ PATH: '/bin', PIP_INDEX_URL: 'http://x', pip_user: '1', PYTHONPATH: '/p', HOME: '/h' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', PIP_CONFIG_FILE: devNull });
  });
});

describe('the environment from the wheels a per-platform package carries', () => {
  const pip = machinePip();
  const here = targetOf(process.platform, process.arch);
  let temp: string;
  let ext: string;
  let wheel: string;
  const saved = { ...process.env };

  beforeAll(() => {
    temp = mkdtempSync(join(tmpdir(), 'surehand-offline-test-'));
    ext = join(temp, 'ext');
    wheel = makeWheel(join(ext, 'server'), 'surehand', 7, 'dep-probe');
    makeWheel(join(ext, 'server', 'wheels'), 'dep_probe', 8);
    writeFileSync(join(ext, 'server', 'wheels', 'manifest.json'), JSON.stringify({ target: here, pythons: ['3.11'] }));
    mkdirSync(join(ext, 'server', 'pip'));
    if (pip !== undefined) {
      copyFileSync(pip, join(ext, 'server', 'pip', basename(pip)));
    }
    // Nowhere to download from: what the machine's pip is told would fail, and must not be used.
    process.env.PIP_INDEX_URL = 'http://127.0.0.1:9/simple';
    process.env.PIP_NO_INDEX = '1';
  });

  afterAll(() => {
    process.env = saved;
    rmSync(temp, { recursive: true, force: true });
  });

  it.skipIf(pip === undefined || here === undefined)('installs offline from them, with the pip it carries', async () => {
    const bundle = shippedBundle(ext);
    expect(bundle?.pip).toBe(join(ext, 'server', 'pip', basename(pip ?? '')));
    const plan = installPlan(bundle, { major: 3, minor: 11, freeThreaded: false }, here);
    expect(plan).toMatchObject({ offline: true, wheels: 1 });
    const steps: string[] = [];
    const lines: string[] = [];
    const envDir = join(temp, 'storage', 'env');
    const started = Date.now();
    const built = await buildEnvironment({ base: 'python3', wheel, envDir, plan, log: (l) => lines.push(l), step: (s) => steps.push(s) });
    console.log(`offline install of two wheels: ${Date.now() - started} ms`);
    expect(built).toEqual({ python: venvPython(envDir), offline: true, packages: 2 });
    expect(steps).toEqual(['creating a virtual environment', 'installing 2 packages offline']);
    expect(lines.join('\n')).toContain('--without-pip');
    expect(lines.join('\n')).toContain('--no-index');
    expect(lines.join('\n')).not.toMatch(/Downloading|Looking in indexes/);
    const probe = 'import surehand_probe, dep_probe; print(surehand_probe.VALUE + dep_probe.VALUE)';
    expect(execFileSync(built.python, ['-c', probe]).toString().trim()).toBe('15');
  }, 120_000);

  it.skipIf(pip === undefined || here === undefined)('downloads when they do not install, and says why', async () => {
    // The carried wheels lack the dependency; the machine's own pip settings name where it is.
    const elsewhere = join(temp, 'elsewhere');
    rmSync(join(ext, 'server', 'wheels', 'dep_probe-1.0-py3-none-any.whl'));
    makeWheel(elsewhere, 'dep_probe', 9);
    process.env.PIP_FIND_LINKS = elsewhere;
    const plan: Plan = { offline: true, bundle: shippedBundle(ext)!, wheels: 1 };
    const steps: string[] = [];
    const built = await buildEnvironment({ base: 'python3', wheel, envDir: join(temp, 'storage', 'env2'), plan, log: () => undefined, step: (s) => steps.push(s) });
    expect(built).toMatchObject({ offline: false, why: 'the wheels in the .vsix did not install', packages: 2 });
    expect(steps.at(-1)).toBe('downloading its dependencies from PyPI');
    expect(execFileSync(built.python, ['-c', 'import dep_probe; print(dep_probe.VALUE)']).toString().trim()).toBe('9');
  }, 120_000);
});
