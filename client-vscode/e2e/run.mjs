/**
 * End-to-end test of the surehand extension in real VS Code.
 *
 * code-server (VS Code in a browser), driven by Playwright in Debian's
 * Chromium, with nothing of surehand installed but the .vsix (a
 * per-platform one: it carries the server's dependency wheels) and no
 * surehand setting at all: the extension makes its own Python environment
 * from the wheels it ships (`surehand.python` unset), with the package
 * index out of reach (PIP_INDEX_URL at a closed port, PIP_NO_INDEX, no pip
 * configuration). The settings are split as in a remote window: the
 * machine-specific ones (`traceDir`) in the machine's settings, the rest in
 * the user's. The models are scripted OpenAI-compatible servers
 * (model_server.py). As a person would:
 *
 * 1. open the folder: the first start is timed (printed) until "surehand is
 *    ready", whose button "Set Model Endpoint" sets up endpoint A: its
 *    models are asked for, A answers 401, so its key is asked for right
 *    there and stored for A, then A's models are offered and the scripted
 *    one picked;
 * 2. ask for a multi-file change (two hunks in calc.py, util.py renamed
 *    with a change of its first line, a new notes.md), the model running
 *    the project's tests on it: the first file shows its added lines at
 *    once, no panel opens, Show Diff is free of the review's decorations,
 *    every CodeLens row fits the window, the Changes view lists the files
 *    under the tests' verdict (which test failed, what ran, on what, how
 *    contained); then review by keyboard only (the accept key on a hunk
 *    made stale by typing says why it cannot), the tests' verdict on what
 *    was accepted told before saving, and save; outside a review the
 *    reject key says no review is open and opens nothing;
 * 3. settings.json edited from outside VS Code (a model A does not serve):
 *    the next task's error names surehand.model and offers "Set Model",
 *    which picks the model again;
 * 4. ask again and kill the language server while the model thinks: the
 *    progress ends, the status stops spinning, an error says what happened
 *    with "Show Trace" and "Restart"; restart;
 * 5. switch the endpoint to B ("Surehand: Set Model Endpoint", its one
 *    model picked): the key stored for A never goes there; a command
 *    waiting for approval is shown as waiting, not as running, in a modal
 *    dialog that stays until answered (Deny first, Escape denies);
 * 6. on B, a spoofing task: a command, a hunk label, an added line and the
 *    summary carry ESC[2K ESC[1G and U+202E: each shows escaped (screenshots
 *    `spoof-approval`, `spoof-review`); typing elsewhere in the file during
 *    the review, rejecting the spoofed hunk and accepting the other: the
 *    rejected hunk never comes back and the final message counts the whole
 *    task;
 * 7. "Surehand: Undo Last Task": a modal question names the spoofing task
 *    and calc.py; on Undo the buffer holds its text from before that task
 *    again (the person's line typed during its review kept), unsaved;
 * 8. switch to an endpoint nobody listens on (its model typed, since it
 *    lists none): an error notification naming surehand.baseUrl with "Set
 *    Model Endpoint" and "Show Trace", which opens the trace.
 *
 * Then checks the files on disk, what each model server received, and the
 * first task's trace.
 *
 * Usage: node run.mjs   (after setup.sh and a packaged extension)
 * Environment: SUREHAND_VSIX (default: the newest client-vscode/*.vsix),
 * SUREHAND_PYTHON (runs model_server.py; default: <repo>/.venv/bin/python),
 * CHROMIUM (default: /usr/bin/chromium), E2E_KEEP=1 keeps the temporary
 * directory. Screenshots and logs: client-vscode/test-results/e2e/. Exit
 * status 0 when every check passed, 1 otherwise (the message says which
 * and why).
 */

import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
const EXTENSION_ID = 'surehand.surehand';
/** A model endpoint A does not serve, written into settings.json from outside VS Code. */
const MISSING_MODEL = 'e2e-missing';
/** The first start's target: seconds from opening the workbench to "surehand is ready" (printed, not asserted). */
const FIRST_START_TARGET_S = 15;

const CALC = 'def add(a, b):\n    return a - b\n\n\ndef halve(x):\n    return x / 2\n';
const EXPECTED = 'def add(a, b):\n    return a + b\n\n\ndef halve(x):\n    return x / 2\n';
const UTIL = 'def shout(s):\n    return s.upper()\n';
/** The project's tests (unittest: the system's Python runs them in the sandbox): the proposal's halving fails test_halve. */
const TESTS = [
  'import unittest',
  '',
  'from calc import add, halve',
  '',
  '',
  'class CalcTest(unittest.TestCase):',
  '    def test_add(self):',
  '        self.assertEqual(add(2, 3), 5)',
  '',
  '    def test_halve(self):',
  '        self.assertEqual(halve(3), 1.5)',
  '',
].join('\n');
const TEST_COMMAND = 'python3 -m unittest'; // model_server.py's
const HELPERS = 'def shout(s: str) -> str:\n    return s.upper()\n';
const TASK = 'fix add, make halve floor its result, move util.py to helpers.py';
const CRASH_TASK = 'think for a long time';
const B_TASK = 'clean the build';
const UNREACHABLE_TASK = 'try the other endpoint';
const SPOOF_TASK = 'make halve floor';
const SPOOF_LABEL = 'keep add\\x1b[2K\\x1b[1G \\u202esafe'; // model_server.py's, as shown
const SPOOF_LINE = "__import__('os').system('id')  # \\x1b[2K\\x1b[1G+    return a + b";
/** The command as shown: escaped (the server may quote the word as a shell would need it). */
const SPOOF_COMMAND = /touch pwned '?\\x1b\[2K\\x1b\[1Gpytest'? -q/;
/** calc.py after the spoofing task: the spoofed hunk rejected, halve accepted, the person's line kept. */
const AFTER_SPOOF = 'def add(a, b):\n    return a + b\n\n# mine\ndef halve(x):\n    return x // 2\n';
/** calc.py once the spoofing task is undone: halve as before it, the person's line still there. */
const UNDONE_SPOOF = 'def add(a, b):\n    return a + b\n\n# mine\ndef halve(x):\n    return x / 2\n';
const ACCEPTED = 'add adds'; // model_server.py's descriptions
const REJECTED = 'halve floors';
const RENAMED = 'move the string helpers';

const started = Date.now();
/** Prints `message`, and keeps it in test-results/e2e/run.log with the screenshots. */
const log = (message) => {
  const line = `[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`;
  console.log(line);
  try {
    appendFileSync(join(RESULTS, 'run.log'), `${line}\n`);
  } catch {
    // before RESULTS exists
  }
};

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

/** Starts model_server.py; resolves with {a, b, closed, model, report()} once it listens. */
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
  mkdirSync(RESULTS, { recursive: true });
  const temp = mkdtempSync(join(tmpdir(), 'surehand-e2e-'));
  const workspace = join(temp, 'workspace');
  const traces = join(temp, 'traces');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'calc.py'), CALC);
  writeFileSync(join(workspace, 'util.py'), UTIL);
  writeFileSync(join(workspace, 'tests_calc.py'), TESTS);
  // The model servers' addresses go into the settings, so they start first.
  const model = await startModel(python);
  const env = {
    // The package index out of reach: the first start must need none (a download would fail).
    PIP_INDEX_URL: `${model.closed.replace(/\/v1$/, '')}/simple`,
    PIP_NO_INDEX: '1',
    PIP_CONFIG_FILE: '/dev/null', // nor the machine's own pip configuration (its mirrors)
    // No key in the environment: the only key is the one stored for endpoint A.
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    SUREHAND_MODEL: undefined,
  };
  // No surehand setting at all: the extension asks for the endpoint before anything is sent.
  const server = new CodeServer(join(temp, 'code-server'), settingsFor(), env, { 'surehand.traceDir': traces });
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
  log(`model servers: A ${model.a}, B ${model.b}; workspace ${workspace}`);
  let browser;
  let bench;
  try {
    await step(bench, 'install the extension from the .vsix alone', async () => log(server.installExtension(vsix)));
    const url = await step(bench, 'start code-server', () => server.start());
    browser = await launchBrowser(chromium, executablePath);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    bench = new Workbench(page, RESULTS);
    const envPython = join(server.globalStorage(EXTENSION_ID), 'env', 'bin', 'python');
    await freshInstall(bench, `${url}/?folder=${encodeURIComponent(workspace)}`, envPython, server, model);
    await multiFileReview(bench, workspace, server);
    await reviewKeysOutside(bench);
    await settingsFromOutside(bench, server, model);
    await serverCrash(bench, envPython);
    await otherEndpoint(bench, model);
    await spoofing(bench, workspace, server);
    await undoLastTask(bench, workspace);
    await unreachableEndpoint(bench, model);
    await step(bench, 'check what the model servers received', async () => {
      const report = await model.report();
      log(`model servers: ${JSON.stringify(report)}`);
      // The first task, the one for the model settings.json named from outside (404, no reply used), the crash's.
      check(report.a.completions === 4 && report.a.wrong_model === 1, `A: expected 4 completion requests, one for ${MISSING_MODEL}: ${JSON.stringify(report.a)}`);
      check(report.a.pending === 0 && report.a.overruns.length === 0, `A's script was not used exactly: ${JSON.stringify(report.a)}`);
      check(report.a.authorized, 'A: a request came without the key stored for A');
      // Its models: asked without a key (401), with the key given then, and for "Set Model".
      check(JSON.stringify(report.a.models_keys) === '[false,true,true]', `A's models were asked ${JSON.stringify(report.a.models_keys)}`);
      check(report.a.first_user_message?.includes(TASK), `the task did not reach the model: ${report.a.first_user_message}`);
      check(report.b.completions === 4 && report.b.pending === 0, `B's script was not used exactly: ${JSON.stringify(report.b)}`);
      check(report.b.models_asked === 1, `B's models were asked ${report.b.models_asked} times`);
      check(!report.b.saw_secret, 'B received the key stored for A');
    });
    await step(bench, 'check the trace (in the folder the machine settings name)', async () => {
      const files = existsSync(traces) ? readdirSync(traces).filter((f) => f.endsWith('.jsonl')).sort() : [];
      check(files.length >= 1, `expected traces in ${traces}, found ${JSON.stringify(files)}`);
      const entries = files
        .map((f) => readFileSync(join(traces, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l)))
        .find((e) => JSON.stringify(e).includes(RENAMED));
      check(entries !== undefined, `no trace of the first task among ${JSON.stringify(files)}`);
      const tools = entries.flatMap((e) => (e.type === 'step' ? e.tools : []));
      const edits = tools.filter((t) => ['edit', 'apply_patch', 'create_file'].includes(t.name));
      check(edits.length === 4 && edits.every((t) => t.ok), `the trace's edits: ${JSON.stringify(edits)}`);
      const end = entries.find((e) => e.type === 'end');
      check(end?.ending === 'finished', `the task's end in the trace: ${JSON.stringify(end)}`);
      const review = entries.findIndex((e) => e.type === 'review');
      check(
        review > 0 && entries[review].outcome === 'partly_applied',
        `the trace has no review's outcome: ${JSON.stringify(entries.slice(-3))}`,
      );
      // The tests' verdicts: on the proposal before the review, on what was accepted after it.
      const tests = entries.map((e, i) => [e, i]).filter(([e]) => e.type === 'tests');
      const on = tests.map(([e, i]) => `${e.on}:${i < review ? 'before' : 'after'}:${e.verdicts.map((v) => v.status).join(',')}`);
      check(JSON.stringify(on) === '["proposal:before:failed","accepted:after:passed"]', `the trace's tests: ${JSON.stringify(on)}`);
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

/** The user's settings.json: VS Code's own, for a quiet test; nothing of surehand. */
function settingsFor() {
  return {
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

/** The user's settings.json as it is on disk now. */
function userSettings(server) {
  return JSON.parse(readFileSync(join(server.userData, 'User', 'settings.json'), 'utf8'));
}

/**
 * Open the folder: the first start, timed, with the package index out of
 * reach, until "surehand is ready"; its button sets up endpoint A (its key
 * asked for when A answers 401, then a model picked from A's list).
 */
async function freshInstall(bench, url, envPython, server, model) {
  const page = bench.page;
  let opened;
  await step(bench, 'open the workspace', async () => {
    opened = Date.now();
    await bench.open(url);
    await bench.screenshot('workbench');
  });
  await step(bench, 'the first start shows its steps, then "surehand is ready" (timed, the package index out of reach)', async () => {
    const progress = bench.toast(/surehand: first start: installing \d+ packages offline$/);
    const ready = bench.toast(/surehand is ready/);
    await progress.or(ready).first().waitFor({ timeout: 60_000 });
    if (await progress.isVisible()) {
      await page.waitForTimeout(400); // the toast slides in
      const shown = await progress.locator(UI.toastMessage).first().innerText().catch(() => '(gone)');
      log(`first start, progress: ${JSON.stringify(shown)}`);
      await bench.screenshot('first-start-progress');
    }
    await ready.waitFor({ timeout: 120_000 });
    const seconds = (Date.now() - opened) / 1000;
    const text = await bench.notification(/surehand is ready/);
    log(`notification: ${text}`);
    // A figure, not a timed test: it is printed, and said to be over the target when it is.
    const over = seconds < FIRST_START_TARGET_S ? '' : `, OVER the target of ${FIRST_START_TARGET_S} s`;
    log(`FIRST START: ${seconds.toFixed(1)} s from opening the workbench to "surehand is ready"${over}; ${/first start in ([\d.]+) s/.exec(text)?.[1]} s of it the extension's own`);
    await bench.screenshot('first-start-ready');
    check(/first start in \d+(\.\d)? s/.test(text), `the ready message does not say how long it took: ${text}`);
    check(text.includes('from the wheels in the .vsix, nothing downloaded'), `the first start downloaded: ${text}`);
    check(text.endsWith('Next: set the model endpoint.'), `the ready message does not say what is next: ${text}`);
    await page.locator(UI.serverRunning).first().waitFor({ timeout: 10_000 });
    check(existsSync(envPython), `no environment at ${envPython}`);
    // What pip did, from the trace: the carried wheels, nothing fetched.
    let trace = '';
    for (let i = 0; i < 50 && !trace.includes('Successfully installed'); i++) {
      await page.waitForTimeout(200); // the output channel reaches its file a moment later
      trace = readLogs(join(server.userData, 'logs'), /surehand\.log$/);
    }
    check(/--without-pip/.test(trace) && /--no-index/.test(trace), 'the trace does not show an offline install');
    check(!/Downloading|Looking in indexes|from PyPI/.test(trace), 'pip downloaded something during the first start');
    const installed = /Successfully installed (.*)/.exec(trace)?.[1].split(/\s+/) ?? [];
    log(`pip installed ${installed.length} packages offline: ${installed.join(' ')}`);
    check(installed.some((p) => p.startsWith('surehand-')) && installed.some((p) => p.startsWith('pydantic-core-')), `pip installed ${installed}`);
  });
  await step(bench, 'set up endpoint A from the ready message: its key asked for on 401, its model picked from its list', async () => {
    await bench.toast(/surehand is ready/).locator(UI.toastButton, { hasText: 'Set Model Endpoint' }).first().click();
    await bench.answerInput('Surehand: Set Model Endpoint', model.a);
    const keyPrompt = await bench.inputPrompt('Surehand: Set API Key');
    log(`key prompt: ${JSON.stringify(keyPrompt)}`);
    check(keyPrompt.includes(`${model.a}/models answered 401`) && keyPrompt.includes(`sent only to ${model.a}`), `the key prompt says ${keyPrompt}`);
    await bench.screenshot('setup-key');
    await bench.answerInput('Surehand: Set API Key', API_KEY);
    const rows = await bench.pickRows('Surehand: Set Model');
    log(`models offered: ${JSON.stringify(rows)}`);
    check(JSON.stringify(rows) === JSON.stringify(model.listed_a), `the models offered are ${JSON.stringify(rows)}, not A's ${JSON.stringify(model.listed_a)}`);
    await bench.screenshot('setup-models');
    await bench.pick(model.model, 10_000, true);
    const said = await bench.notification(/surehand: tasks go to/);
    log(`notification: ${said}`);
    check(said === `surehand: tasks go to ${model.a}, model ${model.model}.`, `after the setup: ${said}`);
    const settings = userSettings(server);
    check(settings['surehand.baseUrl'] === model.a && settings['surehand.model'] === model.model, `settings.json holds ${JSON.stringify(settings)}`);
    check(!JSON.stringify(settings).includes(API_KEY), 'the key is in settings.json');
  });
  await step(bench, 'open calc.py', async () => {
    await bench.openFile('calc.py');
    await page.locator(UI.editorLines, { hasText: 'return a - b' }).first().waitFor({ timeout: 20_000 });
  });
}

/** A multi-file proposal: what shows, then a review by keyboard only, then save. */
async function multiFileReview(bench, workspace, server) {
  const page = bench.page;
  await step(bench, 'ask', async () => {
    await bench.openFile('calc.py');
    await bench.runCommand(UI.askCommand);
    await bench.answerInput('Surehand: Ask', TASK);
  });
  await step(bench, 'the first file shows its added lines at once', async () => {
    await bench.codeLens(UI.hunkTitle(ACCEPTED)).first().waitFor({ timeout: 90_000 });
    await bench.waitActiveTab('calc.py');
    const added = page.locator(UI.addedLines, { hasText: UI.addedTitle(ACCEPTED, 'replace 1 line with 1') }).first();
    await added.waitFor({ timeout: 10_000 });
    const shown = (await added.innerText()).replace(/\u00a0/g, ' ');
    check(/\+\s*return a \+ b/.test(shown), `the added lines show\n${shown}`);
    await page.locator(UI.addedLines, { hasText: UI.addedTitle(REJECTED, 'replace 1 line with 1') }).first().waitFor({ timeout: 10_000 });
    // The other files' editors open behind it; under load one may be active for a moment.
    await bench.waitActiveTab('calc.py', 10_000).catch(() => check(false, 'the review did not stay on calc.py'));
    await bench.waitFor(UI.reviewStatus('3 hunks, 1 new file, 1 rename'), 10_000);
  });
  await step(bench, 'no panel opened by itself', async () => {
    check(!(await page.locator(UI.panel).first().isVisible()), 'a panel (the Comments view?) opened during the review');
  });
  await step(bench, 'the Changes view lists the files and hunks', async () => {
    const view = page.locator(UI.changesView).first();
    await view.waitFor({ timeout: 10_000 });
    // Room for its rows (the tests' verdict heads them): the folders' tree closed, as a person would.
    await page.locator(UI.foldersHeader).first().click();
    await page.locator(UI.foldersHeader).first().and(page.locator('[aria-expanded="false"]')).waitFor({ timeout: 10_000 });
    for (const text of ['calc.py', ACCEPTED, REJECTED, 'util.py', 'rename to helpers.py']) {
      await view.locator('.monaco-list-row', { hasText: text }).first().waitFor({ timeout: 10_000 });
    }
    await bench.screenshot('review');
    await bench.screenshot('changes-view', view);
  });
  await step(bench, "the Changes view heads the review with the tests' verdict: what ran, on what, how contained, which test failed", async () => {
    const view = page.locator(UI.changesView).first();
    const rows = view.locator('.monaco-list-row');
    const headline = rows.first();
    await headline.and(rows.filter({ hasText: UI.testsHeadline('1 failed') })).waitFor({ timeout: 10_000 });
    const said = async (row, part) => (await row.locator(part).first().innerText()).replace(/\s+/g, ' ').trim();
    const row = [await said(headline, UI.rowLabel), await said(headline, UI.rowDescription)];
    log(`tests row: ${JSON.stringify(row)}`);
    check(
      JSON.stringify(row) ===
        JSON.stringify([UI.testsHeadline('1 failed'), `${TEST_COMMAND} on the proposed change · run by the model, sandboxed (bubblewrap, no network)`]),
      `the tests' row does not say what ran, on what and how contained: ${JSON.stringify(row)}`,
    );
    check((await headline.getAttribute('aria-expanded')) === 'false', 'the tests\' row opened by itself, pushing the files down');
    await headline.locator('.monaco-tl-twistie').first().click();
    const failing = rows.filter({ hasText: 'test_halve (tests_calc.CalcTest.test_halve)' }).first();
    await failing.waitFor({ timeout: 10_000 });
    log(`failing test row: ${JSON.stringify([await said(failing, UI.rowLabel), await said(failing, UI.rowDescription)])}`);
    const title = (await view.locator('.pane-header').first().innerText()).replace(/\s+/g, ' ');
    check(title.includes(UI.testsHeadline('1 failed')), `the view's title does not carry the headline: ${title}`);
    await bench.screenshot('review-tests');
    await bench.screenshot('changes-view-tests', view);
  });
  await step(bench, 'Show Diff shows the diff alone', async () => {
    await bench.clickLens(UI.hunkTitle(ACCEPTED), 'Show Diff');
    await bench.waitActiveTab('calc.py (current ↔ surehand proposal)');
    const diff = page.locator(UI.diffEditor).first();
    await diff.locator(UI.editorLines, { hasText: 'return a + b' }).first().waitFor({ timeout: 10_000 });
    await page.waitForTimeout(1000); // the review would decorate within this
    check((await diff.locator(UI.codeLens).count()) === 0, 'the diff shows the review\'s CodeLenses');
    check((await diff.locator(UI.addedLines).count()) === 0, 'the diff shows the review\'s added lines');
    await bench.screenshot('show-diff');
    await bench.runCommandByKeyboard(UI.closeEditorCommand);
    await bench.waitActiveTab('calc.py');
  });
  await step(bench, 'keyboard: accept the hunk at the cursor; the next, made stale by typing, cannot be: the key says why, its button rejects it', async () => {
    await page.locator(`${UI.editorLines}`, { hasText: 'return a - b' }).first().waitFor();
    await page.keyboard.press(UI.keys.acceptHunk);
    await bench.codeLens(UI.decided('accept', ACCEPTED)).first().waitFor({ timeout: 10_000 });
    // The cursor is on the next hunk's first line now: a key typed and taken back there makes it stale.
    await page.keyboard.type('x');
    await page.keyboard.press('Backspace');
    await bench.codeLens(`surehand: ${REJECTED} — stale`).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press(UI.keys.acceptHunk);
    const why = await bench.notification(/cannot be accepted/, 10_000);
    log(`notification: ${why}`);
    check(
      why === 'surehand: this change cannot be accepted: you edited its lines since it was proposed, so it can only be rejected (Ctrl+Alt+N).',
      `the accept key on a stale hunk says: ${why}`,
    );
    await page.waitForTimeout(400); // the toast slides in
    await bench.screenshot('stale-accept-key');
    // Its button rejects it; then on to the next file by key.
    await bench.toast(/cannot be accepted/).locator(UI.toastButton, { hasText: 'Reject' }).first().click();
    await bench.waitFor(UI.reviewStatus('1 hunk, 1 new file, 1 rename'), 10_000); // calc.py decided
    await page.keyboard.press(UI.keys.next);
    await bench.waitActiveTab('util.py');
  });
  await step(bench, 'the rename and its first-line change fit the window', async () => {
    const row = bench.codeLens('Accept Rename to helpers.py').first();
    await row.waitFor({ timeout: 10_000 });
    // The text area ends where the minimap starts (or with the editor).
    const editor = page.locator('.editor-group-container.active .monaco-editor').first();
    const right = await editor.evaluate((e) => {
      const minimap = e.querySelector('.minimap');
      return minimap ? minimap.getBoundingClientRect().left : e.getBoundingClientRect().right;
    });
    const links = await row.locator('a').evaluateAll((as) => as.map((a) => [a.textContent, a.getBoundingClientRect().right]));
    log(`rename row: ${JSON.stringify(links)}; editor's right edge ${right}`);
    check(links.some(([t]) => t.includes('Accept')) && links.every(([, r]) => r <= right), `lenses past the right edge (${right}): ${JSON.stringify(links)}`);
    await bench.screenshot('rename');
    await bench.screenshot('changes-view-decided', page.locator(UI.changesView).first());
  });
  await step(bench, 'keyboard: next and previous', async () => {
    await page.keyboard.press(UI.keys.next);
    await bench.waitActiveTab('notes.md');
    await page.keyboard.press(UI.keys.previous);
    await bench.waitActiveTab('util.py');
  });
  await step(bench, 'keyboard: accept the change and the rename, reject the new file', async () => {
    await page.keyboard.press(UI.keys.acceptHunk); // the hunk on line 1 before the rename on the same line
    await bench.codeLens(`Accepted: ${RENAMED}`).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press(UI.keys.acceptHunk);
    await bench.waitActiveTab('notes.md');
    await page.keyboard.press(UI.keys.rejectFile);
  });
  await step(bench, 'the tests run on what was accepted, and their verdict is told before saving', async () => {
    const said = await bench.notification(/on what you accepted, not saved yet/, 60_000);
    log(`notification: ${said}`);
    check(
      said.startsWith(`surehand: ${UI.testsHeadline('2 passed')} on what you accepted, not saved yet. tests \`${TEST_COMMAND}\`: 2 passed on what you accepted (`),
      `the verdict on what was accepted says: ${said}`,
    );
    check(/hunks rejected\); run by surehand, sandboxed \(bubblewrap/.test(said), `it does not say what ran it and how: ${said}`);
    const toast = bench.toast(/on what you accepted, not saved yet/);
    check((await toast.locator('.codicon-info').count()) > 0, 'a passing verdict is not told as information');
    check((await page.locator(`${UI.editorTab}.dirty`).count()) > 0, 'the buffers were saved before the verdict was told');
    // Its progress ("running the tests on what you accepted…") ended with it; the extension was told of its start and end.
    await bench.toast(/running the tests on what you accepted/).waitFor({ state: 'detached', timeout: 10_000 });
    let told = [];
    for (let i = 0; i < 50 && told.length < 2; i++) {
      await page.waitForTimeout(100); // the output channel reaches its file a moment later
      told = readLogs(join(server.userData, 'logs'), /surehand\.log$/).match(/Tests \(accepted, \w+\)/g) ?? [];
    }
    check(JSON.stringify(told) === '["Tests (accepted, running)","Tests (accepted, done)"]', `the extension was told of the check: ${JSON.stringify(told)}`);
    await bench.screenshot('tests-on-accepted');
  });
  await step(bench, 'see the outcome', async () => {
    const message = await bench.notification(/^surehand: some changes applied/, 60_000);
    log(`notification: ${message}`);
    check(message.includes('Tests on the proposal: 1 failed; on what you accepted: 2 passed.'), `the outcome does not count the tests: ${message}`);
    check((await bench.codeLens('surehand:').count()) === 0, 'review lenses are still shown');
    check(!(await page.locator(UI.changesView).first().isVisible()), 'the Changes view outlived the review');
  });
  await step(bench, 'save all, by keyboard', async () => {
    await bench.runCommandByKeyboard(UI.saveAllCommand);
    await page.locator(`${UI.editorTab}.dirty`).first().waitFor({ state: 'detached', timeout: 10_000 });
    await bench.screenshot('saved');
  });
  await step(bench, 'check the files on disk', async () => {
    const calc = readFileSync(join(workspace, 'calc.py'), 'utf8');
    check(calc === EXPECTED, `calc.py is\n${calc}\nexpected\n${EXPECTED}`);
    check(!existsSync(join(workspace, 'util.py')), 'util.py is still there');
    const helpers = existsSync(join(workspace, 'helpers.py')) ? readFileSync(join(workspace, 'helpers.py'), 'utf8') : '(missing)';
    check(helpers === HELPERS, `helpers.py is\n${helpers}\nexpected\n${HELPERS}`);
    check(!existsSync(join(workspace, 'notes.md')), 'the rejected notes.md was created');
  });
}

/** Outside a review, the decision keys say so; the reject key opens no Untitled file (code-server's Ctrl+Alt+N). */
async function reviewKeysOutside(bench) {
  const page = bench.page;
  await step(bench, 'outside a review, the reject key says no review is open and opens nothing', async () => {
    await bench.openFile('calc.py');
    const tabs = await page.locator(UI.editorTab).allInnerTexts();
    await page.keyboard.press(UI.keys.rejectHunk);
    const said = await bench.notification(/no review is open/, 10_000);
    log(`notification: ${said}`);
    check(said === 'surehand: no review is open for Ctrl+Alt+N to act on.', `the key says: ${said}`);
    await page.waitForTimeout(500);
    const after = await page.locator(UI.editorTab).allInnerTexts();
    check(!after.some((t) => /Untitled/.test(t)) && after.length === tabs.length, `the key opened a tab: ${JSON.stringify(after)}`);
    await bench.waitActiveTab('calc.py');
    await bench.screenshot('no-review-key');
    await bench.dismissToasts();
  });
}

/**
 * settings.json edited from outside VS Code (another program, a dotfiles
 * sync) names a model A does not serve: the next task goes with it, and its
 * error speaks of surehand.model with "Set Model", which picks one again.
 */
async function settingsFromOutside(bench, server, model) {
  await step(bench, 'edit settings.json from outside VS Code: a model A does not serve, one retry', async () => {
    const settings = { ...userSettings(server), 'surehand.model': MISSING_MODEL, 'surehand.maxRetries': 1 };
    writeFileSync(join(server.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
    await bench.page.waitForTimeout(2000); // VS Code notices the file; the server is told
    await bench.openFile('calc.py');
    await bench.runCommand(UI.askCommand);
    await bench.answerInput('Surehand: Ask', 'use the other model');
  });
  await step(bench, 'the error names surehand.model and offers Set Model, which picks the model again', async () => {
    const toast = bench.toast(/has no model/);
    await toast.waitFor({ timeout: 60_000 });
    const text = await bench.notification(/has no model/);
    log(`notification: ${text}`);
    check(text.includes(`has no model '${MISSING_MODEL}'`), `the task did not go with the model set from outside: ${text}`);
    check(text.endsWith('Check surehand.model and surehand.baseUrl.'), `the error does not name VS Code's settings: ${text}`);
    check(!/the setting 'model'|Check the model name and baseUrl/.test(text), `the error names the server's settings: ${text}`);
    const buttons = (await toast.locator(UI.toastButton).allInnerTexts()).map((b) => b.trim());
    log(`buttons: ${JSON.stringify(buttons)}`);
    check(JSON.stringify(buttons) === JSON.stringify(['Set Model', 'Set Model Endpoint', 'Show Trace']), `the buttons are ${JSON.stringify(buttons)}`);
    await bench.screenshot('wrong-model-error');
    await toast.locator(UI.toastButton, { hasText: 'Set Model' }).first().click();
    const rows = await bench.pickRows('Surehand: Set Model');
    check(JSON.stringify(rows) === JSON.stringify(model.listed_a), `the models offered are ${JSON.stringify(rows)}`);
    await bench.pick(model.model, 10_000, true);
    const said = await bench.notification(new RegExp(`model ${model.model}\\.$`));
    log(`notification: ${said}`);
    check(userSettings(server)['surehand.model'] === model.model, 'Set Model did not save the model');
    await bench.dismissToasts();
  });
}

/** Kill the language server while a task waits for the model. */
async function serverCrash(bench, envPython) {
  const page = bench.page;
  await step(bench, 'ask, and kill the server while the model thinks', async () => {
    await bench.openFile('calc.py');
    await bench.runCommand(UI.askCommand);
    await bench.answerInput('Surehand: Ask', CRASH_TASK);
    await bench.toast(`surehand: ${CRASH_TASK}`).waitFor({ timeout: 30_000 });
    const pids = serverPids(envPython);
    check(pids.length === 1, `expected one language server process, found ${JSON.stringify(pids)}`);
    process.kill(pids[0], 'SIGKILL');
  });
  await step(bench, 'the progress ends and the error says what happened', async () => {
    const toast = bench.toast(/the language server was killed \(SIGKILL\)/);
    await toast.waitFor({ timeout: 30_000 });
    await bench.toast(`surehand: ${CRASH_TASK}`).waitFor({ state: 'detached', timeout: 10_000 });
    for (const action of ['Show Trace', 'Restart']) {
      check(await toast.locator(UI.toastButton, { hasText: action }).first().isVisible(), `no "${action}" on the error`);
    }
    check(!(await bench.notifications()).some((t) => /connection got disposed|task failed/.test(t)), `a cryptic error: ${JSON.stringify(await bench.notifications())}`);
    await page.locator(UI.serverStopped).first().waitFor({ timeout: 10_000 });
    check((await page.locator(`${UI.surehandStatus} .codicon-loading`).count()) === 0, 'the status bar still spins');
    await bench.screenshot('crash');
    await toast.locator(UI.toastButton, { hasText: 'Restart' }).first().click();
    await page.locator(UI.serverRunning).first().waitFor({ timeout: 60_000 });
  });
}

/** The language server processes running from the extension's environment. */
function serverPids(envPython) {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`${envPython} -m lsp_server`))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Endpoint B: the key stored for A does not go there; a command waiting for approval is said to wait. */
async function otherEndpoint(bench, model) {
  const page = bench.page;
  await step(bench, 'switch the endpoint to B, pick its model, and ask', async () => {
    await bench.runCommand(UI.setEndpointCommand);
    await bench.answerInput('Surehand: Set Model Endpoint', model.b);
    const rows = await bench.pickRows('Surehand: Set Model');
    check(JSON.stringify(rows) === JSON.stringify([model.model]), `B's models offered: ${JSON.stringify(rows)}`);
    await bench.pick(model.model, 10_000, true);
    await bench.notification(`surehand: tasks go to ${model.b}, model ${model.model}.`);
    await bench.runCommand(UI.askCommand);
    await bench.answerInput('Surehand: Ask', B_TASK);
  });
  await step(bench, 'a command that waits for approval is shown waiting, not running, in a dialog that stays', async () => {
    const question = page.locator(UI.dialog, { hasText: /wants to run `rm -rf build`/ }).first();
    await question.waitFor({ timeout: 60_000 });
    await bench.waitFor(`${UI.surehandStatus}:has-text("waiting for your approval: rm -rf build")`, 10_000);
    // The progress notification says so too (VS Code passes its reports on every 100 ms).
    await bench.toast('surehand: waiting for your approval: rm -rf build').waitFor({ timeout: 10_000 });
    const texts = [...(await bench.statusBar()), ...(await bench.notifications())];
    check(!texts.some((t) => t.includes('Running rm -rf build')), `"Running" while approval is pending: ${JSON.stringify(texts)}`);
    await bench.screenshot('approval');
    const buttons = (await question.locator(UI.toastButton).allInnerTexts()).map((t) => t.trim());
    log(`approval buttons: ${JSON.stringify(buttons)}`);
    // The focused button (the one Enter presses) is Deny; "always" is never it.
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim());
    log(`approval: the focused button is ${JSON.stringify(focused)}`);
    check(focused === 'Deny', `the button Enter presses is not Deny but ${JSON.stringify(focused)}`);
    // A toast slides into the notification centre after some seconds; the question must not.
    await page.waitForTimeout(25_000);
    check(await question.isVisible(), 'the approval question left the screen unanswered');
    await bench.screenshot('approval-still-there');
    await page.keyboard.press('Escape'); // closing the question denies
    await question.waitFor({ state: 'detached', timeout: 10_000 });
    const message = await bench.notification(/^surehand: no changes/, 60_000);
    log(`notification: ${message}`);
  });
}

/**
 * Model-chosen text with terminal escapes and a bidi override, shown escaped
 * everywhere; a "no" that holds although the person typed in the file.
 */
async function spoofing(bench, workspace, server) {
  const page = bench.page;
  await step(bench, 'spoof: ask on B', async () => {
    await bench.openFile('calc.py');
    await bench.runCommand(UI.askCommand);
    await bench.answerInput('Surehand: Ask', SPOOF_TASK);
  });
  await step(bench, 'spoof: the command shows escaped in the approval dialog', async () => {
    const question = page.locator(UI.dialog, { hasText: /wants to run/ }).first();
    await question.waitFor({ timeout: 60_000 });
    const detail = await question.locator('.dialog-message-detail').first().innerText();
    log(`approval detail: ${JSON.stringify(detail)}`);
    check(SPOOF_COMMAND.test(detail), `the command is not shown escaped: ${JSON.stringify(detail)}`);
    check(!/[\u001b\u202e]/.test(detail), 'the dialog carries a raw escape or bidi character');
    const status = page.locator(UI.surehandStatus, { hasText: 'waiting for your approval: touch pwned' }).first();
    await status.waitFor({ timeout: 10_000 });
    const said = await status.innerText();
    check(said.includes('\\x1b') && !/[\u001b\u202e]/.test(said), `the status does not show the command escaped: ${JSON.stringify(said)}`);
    await bench.screenshot('spoof-approval');
    await page.keyboard.press('Enter'); // the first button: Deny
    await question.waitFor({ state: 'detached', timeout: 10_000 });
    check(!existsSync(join(workspace, 'pwned')), 'the denied command ran');
  });
  await step(bench, 'spoof: the hunk label and the added line show escaped', async () => {
    await bench.codeLens(UI.hunkTitle(SPOOF_LABEL)).first().waitFor({ timeout: 60_000 });
    const added = page.locator(UI.addedLines, { hasText: SPOOF_LABEL }).first();
    await added.waitFor({ timeout: 10_000 });
    const shown = (await added.innerText()).replace(/\u00a0/g, ' ');
    log(`added lines: ${JSON.stringify(shown)}`);
    check(shown.includes(SPOOF_LINE), `the added line is not shown escaped:\n${shown}`);
    const lenses = (await page.locator(UI.codeLens).allInnerTexts()).join('\n');
    check(!/[\u001b\u202e]/.test(shown + lenses), 'a raw escape or bidi character reached the review');
    await bench.screenshot('spoof-review');
  });
  await step(bench, "spoof: a new file's hidden characters each carry their escape", async () => {
    await page.locator(UI.editorTab, { hasText: 'spoof.md' }).first().click();
    await bench.waitActiveTab('spoof.md');
    await bench.codeLens('Reject New File').first().waitFor({ timeout: 10_000 });
    // The marks are decorations: their escapes are CSS content before the character.
    const marks = await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().evaluate((lines) =>
      [...lines.querySelectorAll('span')].map((s) => getComputedStyle(s, '::before').content).filter((c) => c.includes('\\')),
    );
    log(`hidden-character marks: ${JSON.stringify(marks)}`);
    check(marks.some((m) => m.includes('x1b')) && marks.some((m) => m.includes('u202e')), `no escape marks: ${JSON.stringify(marks)}`);
    await bench.screenshot('spoof-new-file');
    await bench.clickLens('Reject New File', 'Reject New File');
    await page.locator(UI.editorTab, { hasText: 'calc.py' }).first().click();
    await bench.waitActiveTab('calc.py');
  });
  await step(bench, 'spoof: type elsewhere in the file, reject the spoofed hunk, accept the other', async () => {
    await bench.palette(':');
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    await page.keyboard.type('# mine');
    await page.locator(UI.editorLines, { hasText: '# mine' }).first().waitFor({ timeout: 10_000 });
    await bench.clickLens(UI.hunkTitle(SPOOF_LABEL), 'Reject');
    await bench.codeLens(UI.decided('reject', SPOOF_LABEL)).first().waitFor({ timeout: 10_000 });
    await bench.clickLens(UI.hunkTitle('halve floors'), 'Accept');
  });
  await step(bench, 'spoof: the rejected hunk never comes back; the final message counts the whole task', async () => {
    const message = await bench.notification(/reviewed: /, 60_000);
    log(`notification: ${message}`);
    check(message.startsWith('surehand: some changes applied'), `the outcome says: ${message}`);
    check(message.includes('(reviewed: 1 applied, 2 rejected.)'), `the count is not the whole task's: ${message}`);
    check(message.includes(SPOOF_LABEL) && !/[\u001b\u202e]/.test(message), `the outcome does not show the label escaped: ${message}`);
    check((await bench.codeLens(SPOOF_LABEL).count()) === 0, 'the rejected hunk is offered again');
    check((await bench.codeLens('surehand:').count()) === 0, 'a review is still open');
    await bench.screenshot('spoof-outcome');
    await bench.runCommandByKeyboard(UI.saveAllCommand);
    await page.locator(`${UI.editorTab}.dirty`).first().waitFor({ state: 'detached', timeout: 10_000 });
    const calc = readFileSync(join(workspace, 'calc.py'), 'utf8');
    check(calc === AFTER_SPOOF, `calc.py is\n${calc}\nexpected\n${AFTER_SPOOF}`);
    check(!existsSync(join(workspace, 'spoof.md')), 'the rejected spoof.md was created');
    const again = findInLogs(join(server.userData, 'logs'), 'came back; they stay rejected');
    log(`the server proposed the rejected hunk again: ${again ? 'yes, and it stayed rejected' : 'no'}`);
  });
}

/** Undo the last accepted task (the spoofing one): asked first, then calc.py's buffer is as before it. */
async function undoLastTask(bench, workspace) {
  const page = bench.page;
  await step(bench, 'undo last task: a question names the task and its file; Undo puts the text back', async () => {
    await bench.runCommand(UI.undoTaskCommand);
    const question = page.locator(UI.dialog, { hasText: `Undo “${SPOOF_TASK}”?` }).first();
    await question.waitFor({ timeout: 30_000 });
    const detail = await question.locator('.dialog-message-detail').first().innerText();
    log(`undo question: ${JSON.stringify(detail)}`);
    check(detail.startsWith('It changed calc.py'), `the question does not name calc.py: ${JSON.stringify(detail)}`);
    await bench.screenshot('undo-question');
    await question.locator(UI.toastButton, { hasText: /^Undo$/ }).first().click();
    await question.waitFor({ state: 'detached', timeout: 10_000 });
    const message = await bench.notification(/^surehand: Undone/, 30_000);
    log(`notification: ${message}`);
    check(message.includes(SPOOF_TASK), `the undo's message does not name the task: ${message}`);
    await page.locator(UI.editorLines, { hasText: 'return x / 2' }).first().waitFor({ timeout: 10_000 });
    check((await bench.codeLens('surehand:').count()) === 0, 'the undo opened a review');
    await bench.screenshot('undone');
    await bench.runCommandByKeyboard(UI.saveAllCommand);
    await page.locator(`${UI.editorTab}.dirty`).first().waitFor({ state: 'detached', timeout: 10_000 });
    const calc = readFileSync(join(workspace, 'calc.py'), 'utf8');
    check(calc === UNDONE_SPOOF, `calc.py is\n${calc}\nexpected\n${UNDONE_SPOOF}`);
  });
}

/** The text of every file under `dir` whose path matches `pattern`, joined. */
function readLogs(dir, pattern) {
  if (!existsSync(dir)) {
    return '';
  }
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((f) => pattern.test(f) && statSync(f).isFile())
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

/** Whether any file under `dir` contains `text`. */
function findInLogs(dir, text) {
  if (!existsSync(dir)) {
    return false;
  }
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .some((f) => statSync(f).isFile() && readFileSync(f, 'utf8').includes(text));
}

/** An endpoint nobody listens on: an error notification, the trace one click away. */
async function unreachableEndpoint(bench, model) {
  const page = bench.page;
  await step(bench, 'switch to an unreachable endpoint: no list of models, so the name is typed; ask', async () => {
    await bench.runCommand(UI.setEndpointCommand);
    await bench.answerInput('Surehand: Set Model Endpoint', model.closed);
    const prompt = await bench.inputPrompt('Surehand: Set Model');
    log(`model prompt: ${JSON.stringify(prompt)}`);
    check(
      prompt.startsWith(`No list of models from ${model.closed}/models: it could not be reached: nothing listens there (connection refused).`),
      `the model prompt says ${prompt}`,
    );
    await bench.screenshot('setup-no-models');
    await bench.answerInput('Surehand: Set Model', model.model); // as it was
    await bench.runCommand(UI.askCommand);
    await bench.answerInput('Surehand: Ask', UNREACHABLE_TASK);
  });
  await step(bench, "an error naming VS Code's setting, with Set Model Endpoint and the way to the trace", async () => {
    const toast = bench.toast(/surehand: the model endpoint failed/);
    await toast.waitFor({ timeout: 60_000 });
    check((await toast.locator('.codicon-error').count()) > 0, 'the notification is not an error');
    const text = await bench.notification(/surehand: the model endpoint failed/);
    log(`notification: ${text}`);
    check(text.endsWith('Check surehand.baseUrl and that the server is running.'), `the error does not name surehand.baseUrl: ${text}`);
    const buttons = (await toast.locator(UI.toastButton).allInnerTexts()).map((b) => b.trim());
    check(JSON.stringify(buttons) === JSON.stringify(['Set Model Endpoint', 'Show Trace']), `the buttons are ${JSON.stringify(buttons)}`);
    await page.waitForTimeout(12_000); // an info toast would hide itself by now
    check(await toast.isVisible(), 'the error hid itself');
    await toast.locator(UI.toastButton, { hasText: 'Show Trace' }).first().click();
    // The channel shows its last lines: the failed ask's, which name the endpoint it could not reach.
    await page.locator(`${UI.panel} .monaco-editor`, { hasText: 'Cannot reach the model endpoint' }).first().waitFor({ timeout: 10_000 });
    await bench.screenshot('unreachable-trace');
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
    log(`PASSED: first start offline, setup from the ready message (key on 401, model from the list), multi-file keyboard review with the tests' verdict and the check of what was accepted, keys outside a review and on a stale hunk, settings.json edited from outside, crash, endpoint-bound key and a question that stays, spoofing shown escaped and a "no" that holds, undo of the last task, unreachable endpoint (screenshots in ${RESULTS})`);
    console.log('e2e: 1 passed, 0 failed');
    process.exit(0);
  },
  (error) => {
    log(`FAILED: ${error instanceof Failure ? error.message : error.stack}`);
    console.error(`[e2e] screenshots and logs: ${RESULTS}`);
    console.log('e2e: 0 passed, 1 failed');
    process.exit(1);
  },
);
