import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapSetupMessage } from '../src/fixes';
import { errorDetail, listModels, modelsUrl, parseModels } from '../src/models';

describe("the models an endpoint lists", () => {
  it('reads OpenAI\'s list and the other shapes servers answer with', () => {
    const openai = { object: 'list', data: [{ id: 'gpt-4o', object: 'model' }, { id: 'gpt-4.1' }, { id: 'gpt-4o' }] };
    expect(parseModels(openai)).toEqual(['gpt-4.1', 'gpt-4o']);
    expect(parseModels({ models: [{ name: 'qwen2.5-coder:14b' }, { model: 'llama3' }] })).toEqual(['llama3', 'qwen2.5-coder:14b']);
    expect(parseModels(['b', 'a', ' ', 3])).toEqual(['a', 'b']);
    expect(parseModels({ data: [] })).toEqual([]);
    expect(parseModels({ error: 'nope' })).toBeUndefined();
    expect(parseModels('gpt-4o')).toBeUndefined();
    expect(modelsUrl('http://h/v1')).toBe('http://h/v1/models');
  });

  it("reads an error's message", () => {
    expect(errorDetail('{"error": {"message": "Incorrect API key provided: sk-...abc.", "type": "invalid_request_error"}}')).toBe(
      'Incorrect API key provided: sk-...abc.',
    );
    expect(errorDetail('{"error": "unauthorized"}')).toBe('unauthorized');
    expect(errorDetail('<html>\n  Forbidden  </html>')).toBe('<html> Forbidden </html>');
  });

  describe('asking a real server', () => {
    let server: Server;
    let base: string;
    const seen: (string | undefined)[] = [];

    beforeAll(async () => {
      server = createServer((request, response) => {
        seen.push(request.headers.authorization);
        const reply = (status: number, body: string): void => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(body);
        };
        if (request.url === '/keyed/v1/models') {
          if (request.headers.authorization === 'Bearer right') {
            reply(200, JSON.stringify({ object: 'list', data: [{ id: 'm2' }, { id: 'm1' }] }));
          } else {
            reply(401, JSON.stringify({ error: { message: "You didn't provide an API key." } }));
          }
        } else if (request.url === '/open/v1/models') {
          reply(200, JSON.stringify({ object: 'list', data: [{ id: 'local' }] }));
        } else if (request.url === '/empty/v1/models') {
          reply(200, JSON.stringify({ object: 'list', data: [] }));
        } else if (request.url === '/html/v1/models') {
          reply(200, '<html>hello</html>');
        } else if (request.url === '/slow/v1/models') {
          setTimeout(() => reply(200, '[]'), 2000);
        } else {
          reply(404, JSON.stringify({ error: { message: `Invalid URL (GET ${request.url})` } }));
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it('lists them, sending the key only when given one', async () => {
      expect(await listModels(`${base}/open/v1`, undefined)).toEqual({ kind: 'models', ids: ['local'] });
      expect(seen.at(-1)).toBeUndefined();
      expect(await listModels(`${base}/keyed/v1`, 'right')).toEqual({ kind: 'models', ids: ['m1', 'm2'] });
      expect(seen.at(-1)).toBe('Bearer right');
    });

    it('says when the endpoint wants a key', async () => {
      expect(await listModels(`${base}/keyed/v1`, undefined)).toEqual({ kind: 'auth', status: 401, detail: "You didn't provide an API key." });
      expect(await listModels(`${base}/keyed/v1`, 'wrong')).toMatchObject({ kind: 'auth', status: 401 });
    });

    it('says why there is no list', async () => {
      expect(await listModels(`${base}/empty/v1`, undefined)).toEqual({ kind: 'models', ids: [] });
      expect(await listModels(`${base}/none/v1`, undefined)).toEqual({ kind: 'failed', why: 'it answered 404 (Invalid URL (GET /none/v1/models))' });
      expect(await listModels(`${base}/html/v1`, undefined)).toEqual({ kind: 'failed', why: 'its answer is not JSON' });
      expect(await listModels(`${base}/slow/v1`, undefined, fetch, 200)).toEqual({ kind: 'failed', why: 'it did not answer within 10 s' });
      const closed = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const port = (probe.address() as AddressInfo).port;
          probe.close(() => resolve(port));
        });
      });
      expect(await listModels(`http://127.0.0.1:${closed}/v1`, undefined)).toEqual({
        kind: 'failed',
        why: 'it could not be reached: nothing listens there (connection refused)',
      });
    });
  });
});

/** The server's source, where its setup messages are written. */
const SERVER_SOURCE = ['agent/models/openai_client.py', 'agent/loop/session.py', 'agent/config/settings.py']
  .map((file) => readFileSync(join(__dirname, '..', '..', file), 'utf8'))
  .join('\n');

/** The words of the server only: a VS Code user has none of these settings. */
const SERVER_WORDS = /'model'|apiKey setting|(?<![.\w])(baseUrl|apiKeyEnv|maxSteps|requestTimeout|streamTimeout)\b/;

describe("the server's setup errors in VS Code's words", () => {
  const where = 'http://127.0.0.1:9/v1/';
  const cases: { server: string; shown: string; buttons: string[] }[] = [
    {
      server:
        "No model configured: set the setting 'model' (or the environment variable SUREHAND_MODEL) to a model your endpoint serves.",
      shown: 'No model configured: choose one with "Set Model" (it sets surehand.model to a model your endpoint serves).',
      buttons: ['Set Model', 'Open Settings'],
    },
    {
      server:
        'No API key: set the environment variable OPENAI_API_KEY (or apiKeyEnv to the variable that holds it), or point baseUrl at a server that needs none.',
      shown:
        'No API key: store one with "Set API Key", or set the environment variable OPENAI_API_KEY (surehand.apiKeyEnv names it), or set surehand.baseUrl to a server that needs none.',
      buttons: ['Set API Key', 'Set Model Endpoint'],
    },
    {
      server: `The model endpoint ${where} refused the API key (401: Incorrect API key provided: e2e-...key.). Check the key in the apiKey setting.`,
      shown: `The model endpoint ${where} refused the API key (401: Incorrect API key provided: e2e-...key.). Check the key: "Set API Key" stores it for this endpoint.`,
      buttons: ['Set API Key'],
    },
    {
      server: `The model endpoint ${where} refused the API key (403: forbidden). Check the key in the environment variable OPENAI_API_KEY.`,
      shown: `The model endpoint ${where} refused the API key (403: forbidden). Check the key in the environment variable OPENAI_API_KEY (surehand.apiKeyEnv names it), or store one with "Set API Key".`,
      buttons: ['Set API Key', 'Open Settings'],
    },
    {
      server: `The model endpoint ${where} has no model 'e2e-missing' or no chat-completions route (The model \`e2e-missing\` does not exist). Check the model name and baseUrl.`,
      shown: `The model endpoint ${where} has no model 'e2e-missing' or no chat-completions route (The model \`e2e-missing\` does not exist). Check surehand.model and surehand.baseUrl.`,
      buttons: ['Set Model', 'Set Model Endpoint'],
    },
    {
      server: `Cannot reach the model endpoint ${where}: Connection refused. Check baseUrl and that the server is running.`,
      shown: `Cannot reach the model endpoint ${where}: Connection refused. Check surehand.baseUrl and that the server is running.`,
      buttons: ['Set Model Endpoint'],
    },
    {
      server: `The model endpoint ${where} did not start answering within 60 s. Check the server, or raise requestTimeout.`,
      shown: `The model endpoint ${where} did not start answering within 60 s. Check the server, or raise surehand.requestTimeout.`,
      buttons: ['Open Settings'],
    },
    {
      server: 'surehand: stopped at the step limit: Stopped after 40 steps (the step limit, maxSteps).',
      shown: 'surehand: stopped at the step limit: Stopped after 40 steps (the step limit, surehand.maxSteps).',
      buttons: ['Open Settings'],
    },
    {
      server: 'surehand: the language server is not running.',
      shown: 'surehand: the language server is not running.',
      buttons: ['Restart Server'],
    },
    {
      server: "surehand: setting 'maxSteps' has an invalid value 'many'; default used",
      shown: "surehand: setting surehand.maxSteps has an invalid value 'many'; default used",
      buttons: ['Open Settings'],
    },
    {
      server: 'surehand: sandboxMemoryMb = 9999999 is above its ceiling 1048576, which no setting may exceed; 1048576 used',
      shown: 'surehand: surehand.sandboxMemoryMb = 9999999 is above its ceiling 1048576, which no setting may exceed; 1048576 used',
      buttons: ['Open Settings'],
    },
  ];

  it.each(cases)('$server', ({ server, shown, buttons }) => {
    const mapped = mapSetupMessage(`surehand: the model endpoint failed: ${server}`);
    expect(mapped.text).toBe(`surehand: the model endpoint failed: ${shown}`);
    expect(mapped.fixes.map((f) => f.title)).toEqual(buttons);
    expect(mapped.text).not.toMatch(SERVER_WORDS);
  });

  it('opens the very setting it names, and runs the setup commands', () => {
    expect(mapSetupMessage('Stopped after 40 steps (the step limit, maxSteps).').fixes).toEqual([
      { title: 'Open Settings', command: 'workbench.action.openSettings', args: ['surehand.maxSteps'] },
    ]);
    const commands = cases.flatMap((c) => mapSetupMessage(c.server).fixes.map((f) => f.command));
    const mine = ['surehand.setModel', 'surehand.setApiKey', 'surehand.setEndpoint', 'surehand.restartServer'];
    expect(new Set(commands)).toEqual(new Set([...mine, 'workbench.action.openSettings']));
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
    for (const command of mine) {
      expect(manifest.contributes.commands.map((c) => c.command)).toContain(command);
    }
  });

  it('leaves other messages, and a config file\'s keys, as they are', () => {
    expect(mapSetupMessage('surehand: no changes')).toEqual({ text: 'surehand: no changes', fixes: [] });
    const toml = "~/.config/surehand/config.toml: unknown setting 'maxStep' ignored; baseUrl from there";
    expect(mapSetupMessage(toml)).toEqual({ text: toml, fixes: [] });
    expect(mapSetupMessage('see the model review').text).toBe('see the model review'); // plain words stay
  });

  it("match the server's messages as its source writes them", () => {
    // If one of these changes in agent/, the mapping above must follow it.
    for (const phrase of [
      "No model configured: set the setting 'model' (or the environment variable ",
      'SUREHAND_MODEL) to a model your endpoint serves.',
      '"apiKeyEnv to the variable that holds it), or point baseUrl at a server "',
      '"the apiKey setting"',
      'f"the key in {where_key}."',
      'f"the environment variable {self.settings.api_key_env}"',
      'Check the model name and baseUrl.',
      'Check baseUrl "',
      '"and that the server is running."',
      '"requestTimeout."',
      '"streamTimeout."',
      '(the step limit, maxSteps).',
      'has an invalid value{shown}; default used',
    ]) {
      expect(SERVER_SOURCE, phrase).toContain(phrase);
    }
  });
});
