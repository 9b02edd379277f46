/**
 * The model endpoint and the key bound to it. Free of the `vscode` module.
 *
 * A key in secret storage belongs to one base URL: it is stored under a
 * name made from that URL and only ever sent to the server together with
 * that same URL. A task never goes to an endpoint the user did not set: with
 * no `surehand.baseUrl`, the extension asks for one first (the `openai`
 * package would otherwise pick its own default).
 */

const SECRET_PREFIX = 'surehand.apiKey:';

/** `text` as a canonical base URL (trimmed, no trailing "/"), or undefined when it is not an http(s) URL. */
export function normalizeBaseUrl(text: string | undefined): string | undefined {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return undefined;
  }
  return url.toString().replace(/\/+$/, '');
}

/** Why `text` cannot be the base URL, or undefined when it can (for the input box). */
export function baseUrlProblem(text: string): string | undefined {
  if (text.trim() === '') {
    return 'Enter the address of an OpenAI-compatible endpoint, e.g. http://localhost:8000/v1';
  }
  return normalizeBaseUrl(text) === undefined
    ? 'Not an http(s) URL without credentials, query or fragment, e.g. https://api.example.com/v1'
    : undefined;
}

/** The secret storage name of the key for `baseUrl` (already normalized). */
export function secretName(baseUrl: string): string {
  return `${SECRET_PREFIX}${baseUrl}`;
}

/** Whether a secret storage change of `name` concerns the key of `baseUrl`. */
export function isKeyOf(name: string, baseUrl: string | undefined): boolean {
  return baseUrl !== undefined && name === secretName(baseUrl);
}

/** What a server is started with: the endpoint, and the key stored for exactly that endpoint. */
export interface Launch {
  readonly python: string;
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
}

export function sameLaunch(a: Launch | undefined, b: Launch): boolean {
  return a !== undefined && a.python === b.python && a.baseUrl === b.baseUrl && a.apiKey === b.apiKey;
}
