/**
 * The protocol as written down (`docs/protocol.md`): every example in
 * `docs/protocol/examples/` is valid against its message's schema in
 * `docs/protocol/schema/` (by method; a command's by its name; shared values
 * in `defs.json`, referred to by `$id`), and what the extension sends or reads
 * fits them. The server's tests read the same files.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { askArgument, resultMessage, type AskResult } from '../src/ask';
import { decideAll, decideHunk, reviewed } from '../src/review/decide';
import { parseProposal } from '../src/review/model';
import { REVIEWED_NOTIFICATION } from '../src/review/protocol';
import { STEP_KINDS, stepText, type StepParams } from '../src/statusText';
import { testNodes } from '../src/review/testNodes';
import { acceptedNotice, CHECK_TESTS, offerNotice, readCheckResult, readTests, TESTS_NOTIFICATION } from '../src/verdicts';
import { edit, texts } from './proposal';

const PROTOCOL = join(__dirname, '..', '..', 'docs', 'protocol');

interface Message {
  readonly direction: 'server->client' | 'client->server';
  readonly method: string;
  readonly params: { readonly command?: string; readonly [key: string]: unknown };
  readonly result?: unknown;
}

function load(folder: string, name: string): unknown {
  return JSON.parse(readFileSync(join(PROTOCOL, folder, name), 'utf-8'));
}

const examples = readdirSync(join(PROTOCOL, 'examples'))
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ name: name.replace(/\.json$/, ''), message: load('examples', name) as Message }));

interface Schema {
  readonly $id: string;
}

const schemas = readdirSync(join(PROTOCOL, 'schema'))
  .filter((name) => name.endsWith('.json'))
  .map((name) => ({ name: name.replace(/\.json$/, ''), schema: load('schema', name) as Schema }));
// Every schema added first, so that a `$ref` to another file resolves by its `$id`.
const ajv = new Ajv2020({ allErrors: true, strict: true, schemas: schemas.map((s) => s.schema) });
const validators = new Map(
  schemas
    .filter((s) => s.name !== 'defs')
    .map((s) => {
      const validate = ajv.getSchema(s.schema.$id);
      if (validate === undefined) {
        throw new Error(`schema ${s.name} did not compile`);
      }
      return [s.name, validate];
    }),
);

/** The schema of a message: by its method; a command's by the command's name. */
function schemaName(message: Message): string {
  return message.method === 'workspace/executeCommand'
    ? `command-${message.params.command}`
    : message.method.replace(/^surehand\//, '');
}

function problems(message: Message): string[] {
  const validate = validators.get(schemaName(message));
  if (validate === undefined) {
    return [`no schema ${schemaName(message)}.json`];
  }
  return validate(message) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

function examplesOf(prefix: string): Message[] {
  return examples.filter((e) => e.name.startsWith(`${prefix}-`)).map((e) => e.message);
}

describe('protocol examples', () => {
  it('are there, of every kind', () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(new Set(examples.map((e) => e.name.split('-')[0]))).toEqual(
      new Set(['capability', 'command', 'outcome', 'outcome_notification', 'reviewed', 'step', 'tests']),
    );
  });

  it('has a schema for every message but the shared definitions, each named by its $id', () => {
    for (const { name, schema } of schemas) {
      expect(schema.$id).toBe(`https://surehand.invalid/protocol/schema/${name}.json`);
    }
    const shown = new Set(examples.map((e) => schemaName(e.message)));
    expect(new Set(validators.keys())).toEqual(shown);
  });

  it('has schemas that refuse an outcome notification without its task, or a review item without its state', () => {
    const [applied] = examplesOf('outcome_notification').filter((m) => m.params.outcome === 'applied');
    const withoutTask: Record<string, unknown> = { ...applied.params };
    delete withoutTask.task;
    expect(problems({ ...applied, params: withoutTask })).not.toEqual([]);
    const [reviewing] = examplesOf('outcome_notification').filter((m) => m.params.outcome === 'reviewing');
    const params = reviewing.params as { items: Record<string, unknown>[] };
    const withoutState = { ...params.items[0] };
    delete withoutState.state;
    expect(problems({ ...reviewing, params: { ...params, items: [withoutState] } })).not.toEqual([]);
  });

  it.each(examples)('$name is valid against its schema', ({ message }) => {
    expect(problems(message)).toEqual([]);
  });

  it('has a schema that refuses a class name for a wire name, or `name` for `tool`', () => {
    const [started] = examplesOf('step').filter((m) => m.params.kind === 'tool_started');
    expect(problems({ ...started, params: { ...started.params, kind: 'ToolStarted' } })).not.toEqual([]);
    expect(problems({ ...started, params: { ...started.params, name: 'edit' } })).not.toEqual([]);
  });
});

describe('what the extension reads and sends fits the protocol', () => {
  it('knows every step kind, and words each', () => {
    const kinds = examplesOf('step').map((m) => m.params.kind);
    expect(new Set(kinds)).toEqual(new Set(STEP_KINDS));
    for (const message of examplesOf('step')) {
      expect(stepText(message.params as StepParams), String(message.params.kind)).toBeTypeOf('string');
    }
  });

  it('reads every surehand/tests example, and shows each verdict in its own sentence', () => {
    const found = examplesOf('tests');
    expect(found.map((m) => `${String(m.params.on)}-${String(m.params.state)}`).sort()).toEqual(
      ['accepted-done', 'accepted-offered', 'accepted-running', 'proposal-done'],
    );
    for (const message of found) {
      expect(message.method).toBe(TESTS_NOTIFICATION);
      const tests = readTests(message.params);
      expect(tests, JSON.stringify(message.params)).toBeDefined();
      const sent = (message.params.verdicts as { line: string; status: string }[]) ?? [];
      expect(tests?.verdicts.map((v) => v.status)).toEqual(sent.map((v) => v.status));
      if (tests === undefined || sent.length === 0) {
        continue;
      }
      if (tests.on === 'proposal') {
        expect(testNodes(tests)[0].tooltip).toBe(sent.map((v) => v.line).join('\n'));
        expect(testNodes(tests)[0].label).toBe(message.params.headline);
      } else {
        expect(acceptedNotice(tests).text).toContain(sent[0].line);
      }
    }
    const [offered] = found.filter((m) => m.params.state === 'offered');
    expect(offerNotice(readTests(offered.params) ?? { rejected: 0, hunks: 0 }).text).toContain('you rejected 1 of 2 hunks');
  });

  it("reads surehand.checkTests's result as the example has it", () => {
    const [check] = examplesOf('command').filter((m) => m.params.command === CHECK_TESTS);
    const result = readCheckResult(check.result);
    expect(result.verdicts.map((v) => v.status)).toEqual(['failed']);
    expect(result.verdicts[0].run?.failing).toEqual(['test_add (test_calc.CalcTest.test_add)']);
    expect(acceptedNotice(result).severity).toBe('warning');
  });

  it('sends surehand/reviewed as the schema says', () => {
    const proposal = parseProposal(edit, texts);
    decideAll(proposal, 'accepted');
    decideHunk(proposal, '0.1', 'rejected');
    const message: Message = {
      direction: 'client->server',
      method: REVIEWED_NOTIFICATION,
      params: { hunks: reviewed(proposal) },
    };
    expect(problems(message)).toEqual([]);
  });

  it('sends surehand.ask arguments as the schema says', () => {
    const [ask] = examplesOf('command').filter((m) => m.params.command === 'surehand.ask');
    const selection = { start: { line: 3, character: 0 }, end: { line: 6, character: 0 } };
    for (const argument of [
      askArgument('Fix it.', undefined),
      askArgument('Fix it.', { uri: 'file:///w/a.py' }),
      askArgument('Fix it.', { uri: 'file:///w/a.py', selection }),
    ]) {
      expect(problems({ ...ask, params: { command: 'surehand.ask', arguments: [argument] } })).toEqual([]);
    }
  });

  // The extension announces `experimental.surehand.review`, so it is never answered
  // `started` (the answer of a client that does not wait for the review).
  const answers = examplesOf('outcome').filter((m) => (m.result as AskResult).outcome !== 'started');

  it('gets every answer but the one of a client that does not review itself', () => {
    expect(answers.map((m) => (m.result as AskResult).outcome).sort()).toEqual(
      examplesOf('outcome')
        .map((m) => (m.result as AskResult).outcome)
        .filter((outcome) => outcome !== 'started')
        .sort(),
    );
    expect(answers.length).toBe(examplesOf('outcome').length - 1);
  });

  it.each(answers.map((m) => [(m.result as AskResult).outcome, m.result as AskResult]))(
    'words the outcome %s in its own words',
    (outcome, result) => {
      const unknown = resultMessage({ ...result, outcome: 'not_an_outcome' });
      const message = resultMessage(result);
      expect(message.text).not.toBe(unknown.text.replace('not_an_outcome', String(outcome)));
    },
  );
});
