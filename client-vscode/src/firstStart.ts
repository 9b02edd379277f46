/**
 * The interpreter that runs the server, and the first start that makes it.
 *
 * In order, each step logged: `surehand.python` when it can already
 * `import lsp_server` (a development install) is used as it is; else the
 * extension's own environment when it holds the shipped wheel; else the
 * environment is made now (`environment.ts`), with the first Python 3.11+
 * of `surehand.python`, `python3`, `python` (`py` first on Windows), its
 * steps shown in a notification, and once the server runs, "surehand is
 * ready" with how long it took and whether anything was downloaded.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { basePythons, buildEnvironment, checkPython, installPlan, readyEnvironment, shippedBundle, shippedWheel, type Built } from './environment';
import { checkImport } from './python';
import { targetOf } from './targets';
import { count } from './words';

const OPEN_SETTINGS = 'Open Settings';
const RETRY = 'Retry';
const GET_PYTHON = 'Get Python';
const SHOW_TRACE = 'Show Trace';
const SET_ENDPOINT = 'Set Model Endpoint';

/** An environment made by this start: what it did and how long it took. */
export interface FirstStart extends Built {
  readonly seconds: number;
  readonly base: string;
  readonly envDir: string;
}

export interface Resolved {
  readonly python: string;
  /** Set when the environment was made now. */
  readonly made?: FirstStart;
}

export interface Places {
  readonly extensionPath: string;
  readonly storage: string;
  readonly output: vscode.OutputChannel;
  /** Start the server anew (the "Retry" button). */
  readonly restart: () => Promise<void>;
}

/** The interpreter for the server; undefined when there is none (`explain`: say why, with what fixes it). */
export async function resolveInterpreter(
  places: Places,
  setting: string,
  cwd: string | undefined,
  explain: boolean,
): Promise<Resolved | undefined> {
  const { output } = places;
  if (setting !== '') {
    const check = await checkImport(setting, cwd);
    if (check.ok) {
      output.appendLine(`Interpreter ${setting} (setting surehand.python): lsp_server importable, used as it is`);
      return { python: setting };
    }
  }
  const wheel = shippedWheel(places.extensionPath);
  if (wheel === undefined) {
    output.appendLine('This build of the extension ships no server wheel (package it with npm run package).');
    if (explain) {
      void tellProblem(
        places,
        'surehand: this build of the extension has no server to install. Set "surehand.python" to a Python that can import lsp_server.',
        [OPEN_SETTINGS],
      );
    }
    return undefined;
  }
  const envDir = path.join(places.storage, 'env');
  const ready = readyEnvironment(envDir, wheel);
  if (ready !== undefined) {
    output.appendLine(`Interpreter ${ready} (the extension's environment, ${path.basename(wheel)})`);
    return { python: ready };
  }
  if (!explain) {
    return undefined;
  }
  const started = Date.now();
  const tried: string[] = [];
  let found: Extract<Awaited<ReturnType<typeof checkPython>>, { ok: true }> | undefined;
  for (const candidate of basePythons(setting)) {
    const check = await checkPython(candidate);
    output.appendLine(`Python ${candidate}: ${check.ok ? `usable (${check.tags.major}.${check.tags.minor})` : check.reason}`);
    if (check.ok) {
      found = check;
      break;
    }
    tried.push(`${candidate}: ${check.reason}`);
  }
  if (found === undefined) {
    void tellProblem(
      places,
      `surehand needs Python 3.11 or newer to run its server, and found none (${tried.join('; ')}). ` +
        'Install Python, or set "surehand.python" to one.',
      [GET_PYTHON, OPEN_SETTINGS, RETRY],
    );
    return undefined;
  }
  const base = found.python;
  const plan = installPlan(shippedBundle(places.extensionPath), found.tags, targetOf(process.platform, process.arch));
  output.appendLine(
    plan.offline
      ? `First start: the environment is made from the ${plan.wheels} wheels the .vsix carries, without the network.`
      : `First start: the server's dependencies are downloaded, because ${plan.why}.`,
  );
  try {
    const built = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'surehand: first start' },
      (progress) =>
        buildEnvironment({
          base,
          wheel,
          envDir,
          plan,
          log: (line) => output.appendLine(`  ${line}`),
          step: (message) => progress.report({ message }),
        }),
    );
    const made: FirstStart = { ...built, base, envDir, seconds: (Date.now() - started) / 1000 };
    output.appendLine(`The environment is ready after ${made.seconds.toFixed(1)} s (${readyHow(made)}).`);
    return { python: built.python, made };
  } catch (error) {
    output.appendLine(`Setting up the environment failed: ${(error as Error).message}`);
    void tellProblem(places, `surehand could not set up its Python environment: ${(error as Error).message}.`, [SHOW_TRACE, RETRY]);
    return undefined;
  }
}

/** How the environment was made, in words. */
export function readyHow(made: Pick<FirstStart, 'offline' | 'why' | 'packages' | 'base'>): string {
  const packages = made.packages > 0 ? `${count(made.packages, 'package')} installed` : 'installed';
  return made.offline
    ? `${packages} from the wheels in the .vsix, nothing downloaded`
    : `${packages}, downloaded from PyPI because ${made.why ?? 'the .vsix carries no wheels for it'}`;
}

/** "surehand is ready", once the server runs on an environment made by this start; the next step as a button. */
export async function tellReady(made: FirstStart, seconds: number, endpointSet: boolean): Promise<void> {
  const next = endpointSet ? 'Ask with "Surehand: Ask…".' : 'Next: set the model endpoint.';
  const text = `surehand is ready: first start in ${seconds.toFixed(1)} s, its Python environment made with ${made.base} (${readyHow(made)}). ${next}`;
  const choice = endpointSet ? await vscode.window.showInformationMessage(text) : await vscode.window.showInformationMessage(text, SET_ENDPOINT);
  if (choice === SET_ENDPOINT) {
    await vscode.commands.executeCommand('surehand.setEndpoint');
  }
}

async function tellProblem(places: Places, text: string, actions: string[]): Promise<void> {
  const choice = await vscode.window.showErrorMessage(text, ...actions);
  if (choice === OPEN_SETTINGS) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'surehand.python');
  } else if (choice === GET_PYTHON) {
    await vscode.env.openExternal(vscode.Uri.parse('https://www.python.org/downloads/'));
  } else if (choice === RETRY) {
    await places.restart();
  } else if (choice === SHOW_TRACE) {
    places.output.show(true);
  }
}
