/**
 * The `surehand` settings as the server reads them. Free of the `vscode` module.
 *
 * The server reads the section `surehand` through `workspace/configuration`
 * and the same keys from `initializationOptions`. The section VS Code hands
 * over holds every key the extension contributes, defaults included, and
 * keys the server does not know (`python`): only the server's own keys with
 * a real value go to it, so an unset `model` stays the server's default
 * (the environment's `SUREHAND_MODEL`) instead of becoming "".
 */

/** The keys the server knows (camelCase, as in settings.json). */
export const SERVER_KEYS = [
  'model',
  'baseUrl',
  'apiKeyEnv',
  'maxSteps',
  'requestTimeout',
  'streamTimeout',
  'maxRetries',
  'commandTimeout',
  'commandAllowlist',
  'contextBudget',
  'viewMaxLines',
  'maxFileBytes',
  'outputMaxChars',
  'traceDir',
  'toolTimeout',
  'sandbox',
  'sandboxNetwork',
  'sandboxReadOnlyPaths',
  'sandboxWritablePaths',
  'commandEnvironment',
  'sandboxProcesses',
  'sandboxMemoryMb',
  'sandboxFileMb',
  'sandboxTmpMb',
  'sandboxHomeMb',
  'review',
  'testCommands',
  'testsBeforeReview',
  'testsOnAccepted',
] as const;

export type ServerSettings = Partial<Record<(typeof SERVER_KEYS)[number], unknown>>;

/** The section that configures the extension and the server. */
export const SECTION = 'surehand';

/** Settings whose change needs a new server process (the others the server pulls itself). */
export const RESTART_SETTINGS = ['surehand.python', 'surehand.baseUrl'] as const;

export function serverSettings(section: unknown): ServerSettings {
  const out: ServerSettings = {};
  if (typeof section !== 'object' || section === null) {
    return out;
  }
  const values = section as Record<string, unknown>;
  for (const key of SERVER_KEYS) {
    const value = values[key];
    if (value === undefined || value === null || value === '') {
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * The server's settings with the endpoint pinned to `baseUrl`, the one its
 * key was given for: a changed `surehand.baseUrl` reaches the server only
 * through a restart, with the key stored for the new URL (or none).
 */
export function pinnedSettings(section: unknown, baseUrl: string | undefined): ServerSettings {
  const settings: Record<string, unknown> = { ...serverSettings(section) };
  const workspace = (section as Record<string, unknown> | null)?.[WORKSPACE_KEY];
  if (typeof workspace === 'object' && workspace !== null) {
    const theirs = { ...(workspace as Record<string, unknown>) };
    delete theirs.baseUrl;
    settings[WORKSPACE_KEY] = theirs;
  }
  delete settings.baseUrl;
  return (baseUrl === undefined ? settings : { ...settings, baseUrl });
}

/** What VS Code's `inspect(key)` says of one setting, by where it was set. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The key under which the workspace's own settings go to the server, apart from the user's. */
export const WORKSPACE_KEY = 'workspaceSettings';

/**
 * The `surehand` section split by who set it. A repository can commit
 * `.vscode/settings.json`: its values are not the user's word, so they go to
 * the server apart (`workspaceSettings`), where they are held to the rules
 * of an untrusted project's file (they may only narrow). The user's own
 * settings (and the defaults) are the rest.
 */
export function splitSettings(inspect: (key: string) => Inspected | undefined): Record<string, unknown> {
  const user: Record<string, unknown> = {};
  const workspace: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const found = inspect(key);
    if (found === undefined) {
      continue;
    }
    const mine = found.globalValue ?? found.defaultValue;
    if (mine !== undefined) {
      user[key] = mine;
    }
    const theirs = found.workspaceFolderValue ?? found.workspaceValue;
    if (theirs !== undefined && theirs !== null && theirs !== '') {
      workspace[key] = theirs;
    }
  }
  const out: Record<string, unknown> = { ...serverSettings(user) };
  if (Object.keys(workspace).length > 0) {
    out[WORKSPACE_KEY] = workspace;
  }
  return out;
}

/** What goes to the server at start: its settings, the endpoint and, when one is stored for it, its key. */
export function initializationOptions(
  section: unknown,
  baseUrl: string | undefined,
  apiKey: string | undefined,
): Record<string, unknown> {
  const options: Record<string, unknown> = { ...pinnedSettings(section, baseUrl) };
  if (apiKey && baseUrl !== undefined) {
    options.apiKey = apiKey;
  }
  return options;
}

/**
 * Where VS Code's file service has the user's settings file, whose path on
 * disk is `file` (a POSIX path: `Uri.file(…).path`), most likely first:
 * under its own path (desktop VS Code); as the server's file in code-server
 * (`vscode-remote`, no authority); under `/User` in VS Code for the Web,
 * whose user data is rooted there. Profiles keep their folder.
 */
export function settingsFileUris(file: string): { scheme: string; path: string }[] {
  const parts = file.split('/');
  const user = parts.lastIndexOf('User');
  const uris = [
    { scheme: 'vscode-userdata', path: file },
    { scheme: 'vscode-remote', path: file },
  ];
  return user > 0 ? [...uris, { scheme: 'vscode-userdata', path: ['', ...parts.slice(user)].join('/') }] : uris;
}
