import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basePythons,
  buildEnvironment,
  checkPython,
  parseVersion,
  readyEnvironment,
  recentEnough,
  shippedWheel,
  venvPython,
} from '../src/environment';

describe('finding a Python for the environment', () => {
  it('reads the version and wants 3.11 or newer', () => {
    expect(parseVersion('3 12\n')).toEqual([3, 12]);
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
    expect((await checkPython('python3')).ok).toBe(true); // the machine's own, 3.11+ as the project needs
  });
});

describe('the environment from the shipped wheel', () => {
  let temp: string;
  let wheel: string;

  beforeAll(() => {
    temp = mkdtempSync(join(tmpdir(), 'surehand-env-test-'));
    // A real wheel with no dependencies, so pip installs it offline.
    mkdirSync(join(temp, 'ext', 'server'), { recursive: true });
    wheel = join(temp, 'ext', 'server', 'surehand_probe-1.0-py3-none-any.whl');
    const write = [
      'import sys, zipfile',
      'w = zipfile.ZipFile(sys.argv[1], "w")',
      'w.writestr("surehand_probe.py", "VALUE = 42\\n")',
      'w.writestr("surehand_probe-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: surehand-probe\\nVersion: 1.0\\n")',
      'w.writestr("surehand_probe-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")',
      'w.writestr("surehand_probe-1.0.dist-info/RECORD", "")',
      'w.close()',
    ].join('\n');
    execFileSync('python3', ['-c', write, wheel]);
  });

  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('finds the one wheel the extension ships', () => {
    expect(shippedWheel(join(temp, 'ext'))).toBe(wheel);
    expect(shippedWheel(join(temp, 'nowhere'))).toBeUndefined();
  });

  it('makes a virtual environment with the wheel in it, and knows it is ready', async () => {
    const envDir = join(temp, 'storage', 'env');
    const steps: string[] = [];
    const python = await buildEnvironment({ base: 'python3', wheel, envDir, log: () => undefined, step: (s) => steps.push(s) });
    expect(python).toBe(venvPython(envDir));
    expect(execFileSync(python, ['-c', 'import surehand_probe; print(surehand_probe.VALUE)']).toString().trim()).toBe('42');
    expect(steps).toEqual(['creating a virtual environment', 'installing the server and its dependencies from PyPI']);
    expect(readyEnvironment(envDir, wheel)).toBe(python);
    // Another wheel (an update of the extension): not ready, to be built again.
    expect(readyEnvironment(envDir, join(temp, 'surehand_probe-2.0-py3-none-any.whl'))).toBeUndefined();
  }, 120_000);

  it('fails with a clear error and leaves the working environment alone', async () => {
    const envDir = join(temp, 'storage', 'env');
    mkdirSync(envDir, { recursive: true });
    writeFileSync(join(envDir, 'marker'), 'old');
    const broken = buildEnvironment({ base: 'python3', wheel: join(temp, 'missing.whl'), envDir, log: () => undefined, step: () => undefined });
    await expect(broken).rejects.toThrow(/pip could not install the server/);
    expect(existsSync(join(envDir, 'marker'))).toBe(true);
    const noPython = buildEnvironment({ base: 'surehand-no-such-python', wheel, envDir, log: () => undefined, step: () => undefined });
    await expect(noPython).rejects.toThrow(/surehand-no-such-python -m venv failed \(not found\)/);
    expect(existsSync(`${envDir}.new-${process.pid}`)).toBe(false);
  }, 120_000);
});
