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
  'review',
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
  const settings = serverSettings(section);
  delete settings.baseUrl;
  return baseUrl === undefined ? settings : { ...settings, baseUrl };
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
