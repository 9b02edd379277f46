/**
 * The server's setup errors as VS Code words, with the buttons that fix
 * them. Free of the `vscode` module.
 *
 * The server speaks of its settings by their own names (`baseUrl`, "the
 * setting 'model'", "the apiKey setting"), which every editor shares. In VS
 * Code a setting is `surehand.<name>`, and the key is not a setting at all
 * but what **Surehand: Set API Key** stores. Each rule below matches one
 * message the server sends (agent/models/openai_client.py, agent/loop/session.py,
 * agent/config/settings.py, lsp_server/documents.py) and says what fixes it; then
 * every other setting name the server used is given its `surehand.` prefix
 * and the button that opens it. A message about a config file (`….toml:`)
 * names that file's keys and is left as it is.
 */

import { SERVER_KEYS } from './settings';

/** A button: its title, and the command it runs. */
export interface Fix {
  readonly title: string;
  readonly command: string;
  readonly args?: readonly unknown[];
}

export const SET_MODEL: Fix = { title: 'Set Model', command: 'surehand.setModel' };
export const SET_ENDPOINT: Fix = { title: 'Set Model Endpoint', command: 'surehand.setEndpoint' };
export const SET_API_KEY: Fix = { title: 'Set API Key', command: 'surehand.setApiKey' };
export const RESTART: Fix = { title: 'Restart Server', command: 'surehand.restartServer' };

export function openSettings(setting: string): Fix {
  return { title: 'Open Settings', command: 'workbench.action.openSettings', args: [setting] };
}

export interface Mapped {
  readonly text: string;
  readonly fixes: readonly Fix[];
}

interface Rule {
  readonly pattern: RegExp;
  readonly replace: string;
  readonly fixes: readonly Fix[];
}

/** The server's setup messages, as it words them, each with its VS Code words and fixes. */
const RULES: readonly Rule[] = [
  {
    // agent/models/openai_client.py: no model from any layer.
    pattern: /set the setting 'model' \(or the environment variable SUREHAND_MODEL\) to a model your endpoint serves\./,
    replace: 'choose one with "Set Model" (it sets surehand.model to a model your endpoint serves).',
    fixes: [SET_MODEL, openSettings('surehand.model')],
  },
  {
    // agent/models/openai_client.py: no key and no base URL.
    pattern: /set the environment variable (\S+) \(or apiKeyEnv to the variable that holds it\), or point baseUrl at a server that needs none\./,
    replace: 'store one with "Set API Key", or set the environment variable $1 (surehand.apiKeyEnv names it), or set surehand.baseUrl to a server that needs none.',
    fixes: [SET_API_KEY, SET_ENDPOINT],
  },
  {
    // agent/models/openai_client.py: 401/403 with the key the extension stored for the endpoint.
    pattern: /Check the key in the apiKey setting\./,
    replace: 'Check the key: "Set API Key" stores it for this endpoint.',
    fixes: [SET_API_KEY],
  },
  {
    // agent/models/openai_client.py: 401/403 with the key from the environment.
    pattern: /Check the key in the environment variable ([A-Za-z_][A-Za-z0-9_]*)\./,
    replace: 'Check the key in the environment variable $1 (surehand.apiKeyEnv names it), or store one with "Set API Key".',
    fixes: [SET_API_KEY, openSettings('surehand.apiKeyEnv')],
  },
  {
    // agent/models/openai_client.py: 404.
    pattern: /Check the model name and baseUrl\./,
    replace: 'Check surehand.model and surehand.baseUrl.',
    fixes: [SET_MODEL, SET_ENDPOINT],
  },
  {
    // agent/models/openai_client.py: nothing listens at the base URL.
    pattern: /Check baseUrl and that the server is running\./,
    replace: 'Check surehand.baseUrl and that the server is running.',
    fixes: [SET_ENDPOINT],
  },
  {
    // The extension's own: a command with no server to send it to.
    pattern: /the language server (is not running|did not start)\b/,
    replace: 'the language server $1',
    fixes: [RESTART],
  },
];

/** `text` (a message from the server) in VS Code's words, and what fixes it. */
export function mapSetupMessage(text: string): Mapped {
  let out = text;
  const fixes: Fix[] = [];
  for (const rule of RULES) {
    if (rule.pattern.test(out)) {
      out = out.replace(rule.pattern, rule.replace);
      fixes.push(...rule.fixes);
    }
  }
  if (!/\.toml\b/.test(text)) {
    for (const key of SERVER_KEYS) {
      const before = out;
      // "the setting 'maxSteps'", "setting 'review'": any key; a bare name only when it cannot be a plain word.
      out = out.replace(new RegExp(`\\bsetting '${key}'`, 'g'), `setting surehand.${key}`);
      if (/[A-Z]/.test(key)) {
        out = out.replace(new RegExp(`(^|[^.\\w])${key}\\b`, 'g'), `$1surehand.${key}`);
      }
      if (out !== before && !fixes.some((f) => f.args?.[0] === `surehand.${key}`)) {
        fixes.push(openSettings(`surehand.${key}`));
      }
    }
  }
  return { text: out, fixes: unique(fixes) };
}

/** One button per title: the first one kept. */
function unique(fixes: readonly Fix[]): Fix[] {
  const seen = new Set<string>();
  return fixes.filter((f) => !seen.has(f.title) && seen.add(f.title));
}
