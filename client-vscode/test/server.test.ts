import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { askArgument, resultMessage } from '../src/ask';
import { Coalescer } from '../src/coalesce';
import { expand } from '../src/interpreter';
import { checkImport } from '../src/python';
import { redact } from '../src/redact';
import { initializationOptions, pinnedSettings, serverSettings, settingsFileUris, splitSettings } from '../src/settings';
import { pendingWords, statusText, stepText } from '../src/statusText';

describe('interpreter setting', () => {
  it('expands ~ and ${workspaceFolder}', () => {
    const places = { home: '/home/u', workspaceFolder: '/w' };
    expect(expand('~/venv/bin/python', places)).toBe('/home/u/venv/bin/python');
    expect(expand('${workspaceFolder}/.venv/bin/python', places)).toBe('/w/.venv/bin/python');
  });
});

describe('checking an interpreter', () => {
  it('says why one cannot import the server', async () => {
    expect(await checkImport('surehand-no-such-python', undefined)).toEqual({ ok: false, reason: 'not found' });
    const check = await checkImport('python3', '/');
    expect(check.ok || /No module named 'lsp_server'/.test(check.reason)).toBe(true);
  });
});

describe("the user's settings file, for VS Code to read again", () => {
  it('is looked for where desktop VS Code, code-server and VS Code for the Web keep it', () => {
    expect(settingsFileUris('/srv/user-data/User/settings.json')).toEqual([
      { scheme: 'vscode-userdata', path: '/srv/user-data/User/settings.json' },
      { scheme: 'vscode-remote', path: '/srv/user-data/User/settings.json' },
      { scheme: 'vscode-userdata', path: '/User/settings.json' },
    ]);
    expect(settingsFileUris('/h/.config/Code/User/profiles/-1a2b/settings.json')[2]).toEqual({
      scheme: 'vscode-userdata',
      path: '/User/profiles/-1a2b/settings.json',
    });
    expect(settingsFileUris('/elsewhere/settings.json')).toHaveLength(2);
  });
});

describe('settings for the server', () => {
  it('passes only the server keys that have a value', () => {
    const section = {
      python: 'python3',
      model: '',
      baseUrl: 'http://localhost:8000/v1',
      maxSteps: 12,
      commandAllowlist: null,
      trace: { server: 'off' },
    };
    expect(serverSettings(section)).toEqual({ baseUrl: 'http://localhost:8000/v1', maxSteps: 12 });
    expect(serverSettings(undefined)).toEqual({});
  });

  it('adds the API key to the initialization options only with the endpoint it is for', () => {
    const A = 'http://a.example/v1';
    expect(initializationOptions({ maxSteps: 3 }, A, 'sk-1')).toEqual({ maxSteps: 3, baseUrl: A, apiKey: 'sk-1' });
    expect(initializationOptions({ maxSteps: 3 }, A, undefined)).toEqual({ maxSteps: 3, baseUrl: A });
    expect(initializationOptions({ maxSteps: 3 }, undefined, 'sk-1')).toEqual({ maxSteps: 3 });
    // The section's URL is not the one the key was given for: the launch's wins.
    expect(initializationOptions({ baseUrl: 'http://b.example/v1' }, A, 'sk-1')).toEqual({ baseUrl: A, apiKey: 'sk-1' });
  });

  it('pins the endpoint of a running server: a changed baseUrl waits for the restart', () => {
    const A = 'http://a.example/v1';
    expect(pinnedSettings({ baseUrl: 'http://b.example/v1', maxSteps: 2 }, A)).toEqual({ baseUrl: A, maxSteps: 2 });
    expect(pinnedSettings({ baseUrl: 'http://b.example/v1' }, undefined)).toEqual({});
  });

  it("sends the workspace's own settings apart from the user's, never as the user's word", () => {
    const inspected: Record<string, { defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown }> = {
      maxSteps: { defaultValue: 40, globalValue: 30, workspaceValue: 5 },
      commandEnvironment: { defaultValue: [], workspaceValue: ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY'] },
      outputMaxChars: { defaultValue: 20000 },
      baseUrl: { workspaceValue: 'http://evil.example/v1' },
    };
    const split = splitSettings((key) => inspected[key]);
    expect(split).toEqual({
      maxSteps: 30,
      commandEnvironment: [],
      outputMaxChars: 20000,
      workspaceSettings: {
        maxSteps: 5,
        commandEnvironment: ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY'],
        baseUrl: 'http://evil.example/v1',
      },
    });
    // The endpoint the key was given for stays pinned, whoever names another.
    const A = 'http://a.example/v1';
    expect(pinnedSettings(split, A)).toEqual({
      maxSteps: 30,
      commandEnvironment: [],
      outputMaxChars: 20000,
      baseUrl: A,
      workspaceSettings: { maxSteps: 5, commandEnvironment: ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY'] },
    });
  });
});

describe('coalescing restarts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once for a burst, and once more for a trigger during the run', async () => {
    let release: () => void = () => undefined;
    const job = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const restarts = new Coalescer(100, job);
    restarts.trigger();
    restarts.trigger();
    await vi.advanceTimersByTimeAsync(50);
    restarts.trigger();
    await vi.advanceTimersByTimeAsync(100);
    expect(job).toHaveBeenCalledTimes(1);
    restarts.trigger(); // while running
    await vi.advanceTimersByTimeAsync(100);
    expect(job).toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(job).toHaveBeenCalledTimes(2);
    release();
    await vi.advanceTimersByTimeAsync(200);
    expect(job).toHaveBeenCalledTimes(2);
  });
});

describe('status bar text', () => {
  it('prefers review over work over the server state', () => {
    expect(statusText({ server: 'running' }).text).toBe('$(sparkle) surehand');
    expect(statusText({ server: 'running', working: 'Reading dateparse.py' }).text).toBe(
      '$(loading~spin) surehand: Reading dateparse.py',
    );
    const pending = { hunks: 3, create: 0, delete: 0, rename: 0 };
    expect(statusText({ server: 'running', working: 'x', reviewing: pending }).text).toBe('$(diff) surehand: review 3 hunks');
    expect(statusText({ server: 'running', reviewing: { ...pending, hunks: 1 } }).text).toBe('$(diff) surehand: review 1 hunk');
    expect(statusText({ server: 'stopped', reason: 'no Python' }).tooltip).toContain('no Python');
  });

  it('counts hunks, not file operations', () => {
    expect(pendingWords({ hunks: 3, create: 0, delete: 0, rename: 1 })).toBe('3 hunks, 1 rename');
    expect(pendingWords({ hunks: 0, create: 2, delete: 1, rename: 0 })).toBe('2 new files, 1 deletion');
    expect(pendingWords({ hunks: 0, create: 0, delete: 0, rename: 0 })).toBe('0 hunks');
  });

  it('words each step', () => {
    expect(stepText({ kind: 'step_started', step: 2 })).toBe('step 2: thinking');
    expect(stepText({ kind: 'tool_started', step: 2, summary: 'Reading a.py', tool: 'view_file' })).toBe('Reading a.py');
    expect(stepText({ kind: 'model_calling', step: 3, tool: 'edit' })).toBe('step 3: writing edit');
    expect(stepText({ kind: 'model_retry', step: 3, message: 'Retrying in 1 s' })).toBe('Retrying in 1 s');
    expect(stepText({ kind: 'task_ended', ending: 'finished', message: 'Done.' } as never)).toBe('Done.');
    // Class names are not wire names: an old server's kinds say nothing.
    expect(stepText({ kind: 'StepStarted', step: 2 })).toBeUndefined();
    expect(stepText({ kind: 'model_text', step: 3 })).toBeUndefined();
  });
});

describe('asking', () => {
  const selection = { start: { line: 1, character: 0 }, end: { line: 3, character: 2 } };

  it('sends the active file and a non-empty selection', () => {
    expect(askArgument(' fix it ', { uri: 'file:///w/a.py', selection })).toEqual({
      task: 'fix it',
      uri: 'file:///w/a.py',
      range: selection,
    });
    const caret = { start: { line: 1, character: 2 }, end: { line: 1, character: 2 } };
    expect(askArgument('fix it', { uri: 'file:///w/a.py', selection: caret })).toEqual({ task: 'fix it', uri: 'file:///w/a.py' });
    expect(askArgument('fix it', undefined)).toEqual({ task: 'fix it' });
  });

  it('words the result', () => {
    expect(resultMessage({ outcome: 'applied', summary: 'Fixed parse_dmy.' })).toEqual({
      severity: 'info',
      text: 'surehand: changes applied: Fixed parse_dmy.',
    });
    expect(resultMessage({ outcome: 'conflict', summary: 'Done.', conflicts: { 'a.py': 2 } }).text).toBe(
      'surehand: changes clashed with your edits: Done. Not applied, clashing with your edits: a.py (2 hunks).',
    );
    expect(resultMessage({ outcome: 'conflict', summary: 'Done.', conflicts: { 'a.py': 1 } }).text).toBe(
      'surehand: changes clashed with your edits: Done. Not applied, clashing with your edits: a.py (1 hunk).',
    );
    expect(resultMessage({ outcome: 'error', summary: 'Model unreachable.' }).severity).toBe('error');
  });

  it('says a word once: "cancelled", not "cancelled: Cancelled."', () => {
    expect(resultMessage({ outcome: 'cancelled', summary: 'Cancelled.' }).text).toBe('surehand: cancelled');
    expect(resultMessage({ outcome: 'cancelled', summary: 'Stopped by you.' }).text).toBe('surehand: cancelled: Stopped by you.');
  });

  it('makes a failed endpoint an error, even when the review had nothing to show', () => {
    const unreachable = { outcome: 'no_changes', ending: 'model_error', summary: 'Cannot reach http://127.0.0.1:9/v1.' };
    expect(resultMessage(unreachable)).toEqual({
      severity: 'error',
      text: 'surehand: the model endpoint failed: Cannot reach http://127.0.0.1:9/v1.',
    });
    expect(resultMessage({ outcome: 'no_changes', ending: 'finished', summary: 'Nothing to do.' }).severity).toBe('info');
    expect(resultMessage({ outcome: 'no_changes', ending: 'step_limit', summary: 'x' }).severity).toBe('warning');
    expect(resultMessage(null).severity).toBe('warning');
  });
});

describe('redacting the API key', () => {
  it('replaces it raw and JSON-escaped', () => {
    expect(redact('{"apiKey":"sk-\\"x"} and sk-"x', 'sk-"x')).toBe('{"apiKey":"***"} and ***');
    expect(redact('nothing', undefined)).toBe('nothing');
  });
});
