/**
 * End-to-end test of the surehand extension in real VS Code.
 *
 * code-server (VS Code in a browser), driven by Playwright in Debian's
 * Chromium, with the extension installed from its .vsix and the language
 * server run from the repository's venv; the model is a scripted
 * OpenAI-compatible server (model_server.py) that answers with two edits of
 * calc.py, then finish. As a person would: open calc.py, "Surehand: Ask…",
 * type the task, accept the first hunk and reject the second under the
 * inline review, save. Then checks the file on disk, what the model server
 * received, and the task's trace.
 *
 * Usage: node run.mjs   (after setup.sh and a packaged extension)
 * Environment: SUREHAND_VSIX (default: the newest client-vscode/*.vsix),
 * SUREHAND_PYTHON (default: <repo>/.venv/bin/python), CHROMIUM (default:
 * /usr/bin/chromium), E2E_KEEP=1 keeps the temporary directory.
 * Screenshots and logs: client-vscode/test-results/e2e/. Exit status 0 when
 * every check passed, 1 otherwise (the message says which and why).
 */

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CodeServer } from './codeserver.mjs';
import { launchBrowser, UI, Workbench } from './workbench.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLIENT = resolve(HERE, '..');
const REPO = resolve(CLIENT, '..');
const RESULTS = join(CLIENT, 'test-results', 'e2e');
const API_KEY = 'e2e-secret-key';
const KEY_ENV = 'SUREHAND_E2E_KEY';

const CALC = 'def add(a, b):\n    return a - b\n\n\ndef halve(x):\n    return x / 2\n';
const EXPECTED = 'def add(a, b):\n    return a + b\n\n\ndef halve(x):\n    return x / 2\n';
const TASK = 'fix add, and make halve floor its result';
const ACCEPTED = 'add adds'; // model_server.py's descriptions
const REJECTED = 'halve floors';

const started = Date.now();
const log = (message) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

class Failure extends Error {}

function check(condition, message) {
  if (!condition) {
    throw new Failure(message);
  }
}

/** Run `step`; on failure say which step failed (and why), with a screenshot. */
async function step(bench, name, action) {
  log(name);
  try {
    return await action();
  } catch (error) {
    const shot = bench ? await bench.screenshot(`failed-${name.replace(/\W+/g, '-')}`).catch(() => 'none') : 'none';
    const extra = bench ? `\n  notifications: ${JSON.stringify(await bench.notifications().catch(() => []))}` +
      `\n  status bar: ${JSON.stringify(await bench.statusBar().catch(() => []))}` : '';
    throw new Failure(`step "${name}" failed: ${error.message.split('\n')[0]}\n  screenshot: ${shot}${extra}`);
  }
}

function newestVsix() {
  const found = readdirSync(CLIENT)
    .filter((f) => f.endsWith('.vsix'))
    .map((f) => join(CLIENT, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return found[0];
}

/** Starts model_server.py; resolves with {base_url, model, report()} once it listens. */
function startModel(python) {
  const child = spawn(python, [join(HERE, 'model_server.py'), API_KEY], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise((ok, fail) => {
    lines.once('line', (line) => ok(JSON.parse(line)));
    child.once('exit', (code) => fail(new Error(`model_server.py exited (${code})`)));
  });
  return next().then((info) => ({
    ...info,
    child,
    /** Close its stdin: it answers with what it received, then exits. */
    report: () => {
      const answer = next();
      child.stdin.end();
      return answer;
    },
  }));
}

async function main() {
  const python = process.env.SUREHAND_PYTHON ?? join(REPO, '.venv', 'bin', 'python');
  const vsix = process.env.SUREHAND_VSIX ?? newestVsix();
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  check(existsSync(python), `no Python at ${python} (set SUREHAND_PYTHON or create the venv: bash .ci/run)`);
  check(vsix && existsSync(vsix), 'no .vsix (set SUREHAND_VSIX or run: cd client-vscode && npm run package)');
  check(existsSync(executablePath), `no Chromium at ${executablePath} (run e2e/setup.sh)`);

  rmSync(RESULTS, { recursive: true, force: true });
  const temp = mkdtempSync(join(tmpdir(), 'surehand-e2e-'));
  const workspace = join(temp, 'workspace');
  const traces = join(temp, 'traces');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'calc.py'), CALC);
  // The model server's address goes into the settings, so it starts first.
  const model = await startModel(python);
  const server = new CodeServer(join(temp, 'code-server'), settingsFor(python, model, traces), { [KEY_ENV]: API_KEY });
  process.on('exit', () => {
    server.killNow();
    model.child.kill();
    if (!process.env.E2E_KEEP) {
      rmSync(temp, { recursive: true, force: true });
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => process.exit(1));
  }
  log(`model server at ${model.base_url}; workspace ${workspace}`);
  let browser;
  let bench;
  try {
    await step(bench, 'install the extension', async () => log(server.installExtension(vsix)));
    const url = await step(bench, 'start code-server', () => server.start());
    browser = await launchBrowser(chromium, executablePath);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    bench = new Workbench(page, RESULTS);
    await scenario(bench, `${url}/?folder=${encodeURIComponent(workspace)}`);
    await step(bench, 'check the file on disk', async () => {
      const text = readFileSync(join(workspace, 'calc.py'), 'utf8');
      check(text === EXPECTED, `calc.py is\n${text}\nexpected\n${EXPECTED}`);
    });
    await step(bench, 'check what the model server received', async () => {
      const report = await model.report();
      log(`model server: ${JSON.stringify(report)}`);
      check(report.completions === 2, `expected 2 completion requests, got ${report.completions}`);
      check(report.pending === 0 && report.overruns.length === 0, `the script was not used exactly: ${JSON.stringify(report)}`);
      check(report.authorized, `a request came without the key from ${KEY_ENV}`);
      check(report.first_user_message?.includes(TASK), `the task did not reach the model: ${report.first_user_message}`);
    });
    await step(bench, 'check the trace', async () => {
      const files = existsSync(traces) ? readdirSync(traces).filter((f) => f.endsWith('.jsonl')) : [];
      check(files.length === 1, `expected one trace in ${traces}, found ${JSON.stringify(files)}`);
      const entries = readFileSync(join(traces, files[0]), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const edits = entries.flatMap((e) => (e.type === 'step' ? e.tools : [])).filter((t) => t.name === 'edit');
      check(edits.length === 2 && edits.every((t) => t.ok), `the trace's edits: ${JSON.stringify(edits)}`);
      const last = entries.at(-1);
      check(last.type === 'end' && last.ending === 'finished', `the trace ends with ${JSON.stringify(last)}`);
    });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
    model.child.kill();
    copyLogs(server);
    if (process.env.E2E_KEEP) {
      log(`kept ${temp}`);
    }
  }
}

/** The user's settings.json: the extension pointed at the repository's server and the model server. */
function settingsFor(python, model, traces) {
  return {
    'surehand.python': python,
    'surehand.model': model.model,
    'surehand.baseUrl': model.base_url,
    'surehand.apiKeyEnv': KEY_ENV,
    'surehand.traceDir': traces,
    'remote.autoForwardPorts': false,
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'files.autoSave': 'off',
    'editor.codeLens': true,
  };
}

/** What a person does: open the folder and calc.py, ask, review, save. */
async function scenario(bench, url) {
  await step(bench, 'open the workspace', async () => {
    await bench.open(url);
    await bench.screenshot('workbench');
  });
  await step(bench, 'open calc.py', async () => {
    await bench.openFile('calc.py');
    await bench.page.locator(UI.editorLines, { hasText: 'return a - b' }).first().waitFor({ timeout: 20_000 });
  });
  await step(bench, 'wait for the language server', async () => {
    const running = bench.page.locator(UI.serverRunning);
    await running.or(bench.page.locator(UI.serverStopped)).first().waitFor({ timeout: 90_000 });
    check(await running.isVisible(), 'the status bar says the language server is not running');
    await bench.screenshot('calc-open');
  });
  await step(bench, 'ask', async () => {
    await bench.runCommand(UI.askCommand);
    await bench.answerInput(TASK);
  });
  await step(bench, 'wait for the inline review', async () => {
    await bench.codeLens(UI.hunkTitle(ACCEPTED)).first().waitFor({ timeout: 90_000 });
    await bench.codeLens(UI.hunkTitle(REJECTED)).first().waitFor({ timeout: 10_000 });
    await bench.waitFor(UI.reviewStatus(2), 10_000);
    const added = bench.page.locator(UI.addedLines, { hasText: UI.addedTitle(ACCEPTED, 'replace 1 line with 1') }).first();
    await added.waitFor({ timeout: 10_000 });
    const shown = (await added.innerText()).replace(/\u00a0/g, ' ');
    check(/\+\s*return a \+ b/.test(shown), `the added lines show\n${shown}`);
    await bench.screenshot('review');
  });
  await step(bench, `accept "${ACCEPTED}"`, async () => {
    await bench.clickLens(UI.hunkTitle(ACCEPTED), UI.accept);
    await bench.codeLens(UI.decided('accept', ACCEPTED)).first().waitFor({ timeout: 10_000 });
    await bench.screenshot('accepted-first');
  });
  await step(bench, `reject "${REJECTED}"`, async () => {
    await bench.clickLens(UI.hunkTitle(REJECTED), UI.reject);
  });
  await step(bench, 'see the outcome', async () => {
    const message = await bench.notification(/^surehand: /, 60_000);
    log(`notification: ${message}`);
    check(message.startsWith('surehand: some changes applied'), `the outcome says: ${message}`);
    check((await bench.codeLens('surehand:').count()) === 0, 'review lenses are still shown');
    const lines = bench.page.locator(UI.editorLines).first();
    await lines.filter({ hasText: 'return a + b' }).waitFor({ timeout: 10_000 });
    const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
    check(text.includes('return x / 2') && !text.includes('return x // 2'), `the editor shows\n${text}`);
    await bench.screenshot('decided');
  });
  await step(bench, 'save', async () => {
    await bench.runCommand(UI.saveCommand);
    await bench.page.locator(`${UI.editorTab}.dirty`).first().waitFor({ state: 'detached', timeout: 10_000 });
    await bench.screenshot('saved');
  });
}

/** code-server's own log and VS Code's logs (the "surehand" output channel among them) go with the screenshots. */
function copyLogs(server) {
  const target = join(RESULTS, 'logs');
  mkdirSync(target, { recursive: true });
  for (const [from, to] of [
    [server.logFile, 'code-server.log'],
    [join(server.userData, 'logs'), 'vscode'],
  ]) {
    if (existsSync(from)) {
      cpSync(from, join(target, to), { recursive: true });
    }
  }
}

main().then(
  () => {
    log(`PASSED: two hunks proposed, one accepted and one rejected, as expected (screenshots in ${RESULTS})`);
    console.log('e2e: 1 passed, 0 failed');
    process.exit(0);
  },
  (error) => {
    console.error(`[e2e] FAILED: ${error instanceof Failure ? error.message : error.stack}`);
    console.error(`[e2e] screenshots and logs: ${RESULTS}`);
    console.log('e2e: 0 passed, 1 failed');
    process.exit(1);
  },
);
