/**
 * The platforms a `.vsix` is built for (vsce's `--target`s) and the
 * dependency wheels each carries. Free of the `vscode` module and of imports:
 * the packaging script (`scripts/wheel.mjs`) loads this file too.
 *
 * Each target carries the wheels `pip download --only-binary=:all:` picks
 * for its platform tags, once per Python version the server supports
 * (`requires-python` up to `NEWEST_PYTHON`). The tags are the oldest
 * systems VS Code itself runs on: glibc 2.28 (manylinux_2_28 and every older
 * manylinux), macOS 11 (pip adds the older macOS versions and universal2),
 * 64-bit Windows.
 */

/** The newest Python the packages are built for (its wheels exist for every native dependency). */
export const NEWEST_PYTHON: readonly [number, number] = [3, 15];

/** The oldest glibc the Linux targets' wheels may need (VS Code's own minimum). */
const GLIBC_MINOR = 28;

function manylinux(arch: string): string[] {
  const tags: string[] = [];
  for (let minor = GLIBC_MINOR; minor >= 17; minor--) {
    tags.push(`manylinux_2_${minor}_${arch}`);
  }
  return [...tags, `manylinux2014_${arch}`];
}

export const TARGETS = {
  'linux-x64': { platform: 'linux', arch: 'x64', tags: manylinux('x86_64') },
  'linux-arm64': { platform: 'linux', arch: 'arm64', tags: manylinux('aarch64') },
  'darwin-x64': { platform: 'darwin', arch: 'x64', tags: ['macosx_11_0_x86_64'] },
  'darwin-arm64': { platform: 'darwin', arch: 'arm64', tags: ['macosx_11_0_arm64'] },
  'win32-x64': { platform: 'win32', arch: 'x64', tags: ['win_amd64'] },
} as const;

export type Target = keyof typeof TARGETS;

export function isTarget(name: string): name is Target {
  return Object.prototype.hasOwnProperty.call(TARGETS, name);
}

/** The target whose wheels run here (`process.platform`, `process.arch`), or undefined. */
export function targetOf(platform: string, arch: string): Target | undefined {
  return (Object.keys(TARGETS) as Target[]).find((t) => TARGETS[t].platform === platform && TARGETS[t].arch === arch);
}

/** The Python versions ("3.11", ...) from `requires-python` (">=3.11") up to `newest`. */
export function supportedPythons(requiresPython: string, newest: readonly [number, number] = NEWEST_PYTHON): string[] {
  const match = /^\s*>=\s*3\.(\d+)\s*$/.exec(requiresPython);
  if (match === null || newest[0] !== 3) {
    throw new Error(`requires-python ${JSON.stringify(requiresPython)}: only ">=3.N" is understood`);
  }
  const out: string[] = [];
  for (let minor = Number(match[1]); minor <= newest[1]; minor++) {
    out.push(`3.${minor}`);
  }
  return out;
}

/** `pip download`'s arguments for `requirement`'s wheels, and its dependencies', for `target` and `python` ("3.12"). */
export function downloadArgs(target: Target, python: string, dest: string, requirement: string): string[] {
  const platforms = TARGETS[target].tags.flatMap((tag) => ['--platform', tag]);
  return [
    '-m', 'pip', 'download',
    '--only-binary=:all:',
    ...platforms,
    '--python-version', python,
    '--implementation', 'cp',
    '--disable-pip-version-check',
    '--quiet',
    '--dest', dest,
    requirement,
  ];
}
