import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, keyLabel, KEYS, noReviewText, withKey } from '../src/review/keys';
import { fitRow, lensRows, MAX_ROW, rowWidth } from '../src/review/lensText';
import { parseProposal } from '../src/review/model';
import type { WorkspaceEdit } from '../src/review/protocol';
import { edit, texts } from './proposal';
import { lines } from './ranges';

/** The parts of package.json these tests read. */
interface Manifest {
  contributes: {
    keybindings: { command: string; key: string; mac: string; when: string }[];
    commands: { command: string }[];
    configuration: { properties: Record<string, { scope: string }> };
    configurationDefaults: Record<string, unknown>;
  };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
}

function readManifest(): Manifest {
  return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Manifest;
}

const OLD = 'file:///w/src/old_module_with_a_long_name.py';
const NEW = 'file:///w/src/renamed_module_with_an_even_longer_name.py';

/** A rename plus a change of the file's first line: both sets of lenses in one row. */
const renameAndChange: WorkspaceEdit = {
  documentChanges: [
    { kind: 'rename', oldUri: OLD, newUri: NEW, annotationId: 'm' },
    { textDocument: { uri: NEW, version: null }, edits: [{ range: lines(0, 1), newText: 'import os\nimport sys\n', annotationId: 'e' }] },
  ],
  changeAnnotations: {
    m: { label: 'move the parser next to the tokenizer so that imports stay short', needsConfirmation: true },
    e: { label: 'import what the moved parser needs from the standard library', needsConfirmation: true },
  },
};

describe('CodeLens rows', () => {
  it('fit the editor when a rename and a change share the first line', () => {
    const proposal = parseProposal(renameAndChange, new Map([[OLD, 'import re\nx = 1\n']]));
    const row = lensRows(proposal.files, false).get(0) ?? [];
    const titles = row.map((l) => l.title);
    expect(titles[0]).toMatch(/^Accept Rename to renamed_module/);
    expect(titles).toContain('Reject Rename');
    expect(titles).toContain('Accept');
    expect(titles.filter((t) => t === 'Show Diff')).toHaveLength(1);
    expect(rowWidth(titles)).toBeLessThanOrEqual(MAX_ROW);
    // What was shortened is in the tooltip, whole.
    const hunkTitle = row.find((l) => l.title.startsWith('surehand: import'));
    expect(hunkTitle?.tooltip).toContain('import what the moved parser needs from the standard library — replace 1 line with 2');
  });

  it('fit every row of a proposal with long labels', () => {
    const long = parseProposal(edit, texts);
    long.files.forEach((f) => f.hunks.forEach((h) => Object.assign(h, { label: 'x'.repeat(200) })));
    for (const file of long.files) {
      for (const row of lensRows([file], false).values()) {
        expect(rowWidth(row.map((l) => l.title))).toBeLessThanOrEqual(MAX_ROW);
      }
    }
  });

  it('leave a short row as it is', () => {
    const row = fitRow([{ text: (l, s) => `surehand: ${l} — ${s}`, label: 'fix', summary: 'insert 1 line', command: '' }]);
    expect(row).toEqual([{ title: 'surehand: fix — insert 1 line', command: '', args: [] }]);
  });

  it('name the keys in their tooltips', () => {
    const row = lensRows(parseProposal(edit, texts).files.slice(0, 1), false).get(1) ?? [];
    expect(row.find((l) => l.title === 'Accept')?.tooltip).toBe('Accept (Ctrl+Alt+Y)');
    expect(row.find((l) => l.title === 'Reject')?.tooltip).toBe('Reject (Ctrl+Alt+N)');
    expect(row[0].tooltip).toBe('Next (Alt+F5), previous (Shift+Alt+F5)');
  });
});

describe('keybindings', () => {
  it('are the ones package.json declares, for every review command', () => {
    const manifest = readManifest();
    const declared = manifest.contributes.keybindings;
    expect(Object.values(COMMANDS).sort()).toEqual(declared.map((k) => k.command).sort());
    for (const binding of declared) {
      expect(KEYS[binding.command as keyof typeof KEYS]).toEqual({ key: binding.key, mac: binding.mac });
      // The decision keys are bound outside a review too (they say none is open, never falling
      // through to code-server's Ctrl+Alt+N, New Untitled File); moving keeps VS Code's Alt+F5 outside.
      const moves = [COMMANDS.next, COMMANDS.previous] as string[];
      expect(binding.when, binding.command).toBe(moves.includes(binding.command) ? 'surehand.reviewing' : undefined);
      const command = manifest.contributes.commands.find((c) => c.command === binding.command);
      expect(command, binding.command).toBeDefined();
    }
  });

  it('say that no review is open, with the key pressed', () => {
    expect(noReviewText(COMMANDS.rejectHunk, false)).toBe('surehand: no review is open for Ctrl+Alt+N to act on.');
    expect(noReviewText(COMMANDS.acceptAll, true)).toBe('surehand: no review is open for ⌘K ⌥⌘Y to act on.');
  });

  it('read as the platform writes them', () => {
    expect(keyLabel('ctrl+alt+shift+y', false)).toBe('Ctrl+Shift+Alt+Y');
    expect(keyLabel('cmd+alt+y', true)).toBe('⌥⌘Y');
    expect(keyLabel('ctrl+k ctrl+alt+n', false)).toBe('Ctrl+K Ctrl+Alt+N');
    expect(withKey('Accept All', COMMANDS.acceptAll, false)).toBe('Accept All (Ctrl+K Ctrl+Alt+Y)');
    expect(withKey('Show Diff', 'surehand.review.showDiff', false)).toBe('Show Diff');
  });
});

describe('settings scopes', () => {
  const manifest = readManifest();
  const scope = (key: string): string => manifest.contributes.configuration.properties[key].scope;

  it('keep paths of the machine machine-specific, and the endpoint wherever the user sets it', () => {
    // In a remote window, a machine-specific User setting does not apply (only the Remote tab's):
    // right for the interpreter and the trace folder, wrong for the endpoint and its key variable.
    expect(scope('surehand.python')).toBe('machine-overridable');
    expect(scope('surehand.traceDir')).toBe('machine-overridable');
    for (const key of ['surehand.baseUrl', 'surehand.apiKeyEnv', 'surehand.model']) {
      expect(scope(key), key).not.toMatch(/^machine/);
    }
  });

  it('keep an untrusted folder from choosing the interpreter, the endpoint or what runs unasked', () => {
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const key of ['surehand.python', 'surehand.baseUrl', 'surehand.apiKeyEnv', 'surehand.commandAllowlist']) {
      expect(restricted).toContain(key);
    }
  });

  it('open no panel uninvited: the Comments view stays closed when a review opens', () => {
    expect(manifest.contributes.configurationDefaults['comments.openView']).toBe('never');
  });
});
