/**
 * The models an endpoint lists (`GET <baseUrl>/models`), for the setup's
 * pick. Free of the `vscode` module.
 *
 * OpenAI and the servers that copy it answer `{"object": "list", "data":
 * [{"id": "gpt-4o", …}, …]}`; a few answer `{"models": [{"name": …}]}` or a
 * bare list. A key goes only with the request to the endpoint it is for
 * (the caller picks it, as for the server).
 */

export type Listing =
  | { readonly kind: 'models'; readonly ids: readonly string[] }
  /** The endpoint wants a (another) key: 401 or 403. */
  | { readonly kind: 'auth'; readonly status: number; readonly detail: string }
  | { readonly kind: 'failed'; readonly why: string };

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 4 * 2 ** 20;

/** The model ids in a `/models` answer, sorted, without duplicates; undefined when it is not such a list. */
export function parseModels(body: unknown): string[] | undefined {
  const list: unknown =
    Array.isArray(body)
      ? body
      : typeof body === 'object' && body !== null
        ? ((body as Record<string, unknown>).data ?? (body as Record<string, unknown>).models)
        : undefined;
  if (!Array.isArray(list)) {
    return undefined;
  }
  const ids = new Set<string>();
  for (const item of list as unknown[]) {
    const id =
      typeof item === 'string'
        ? item
        : typeof item === 'object' && item !== null
          ? ((item as Record<string, unknown>).id ?? (item as Record<string, unknown>).name ?? (item as Record<string, unknown>).model)
          : undefined;
    if (typeof id === 'string' && id.trim() !== '') {
      ids.add(id.trim());
    }
  }
  return [...ids].sort((a, b) => a.localeCompare(b));
}

/** The message of an OpenAI-shaped error body (`{"error": {"message": …}}`), else the text's start. */
export function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'object' ? body.error?.message : (body.error ?? body.message);
    if (typeof message === 'string' && message.trim() !== '') {
      return message.trim().slice(0, 200);
    }
  } catch {
    // not JSON
  }
  return text.trim().replace(/\s+/g, ' ').slice(0, 200);
}

/** The address the models are listed at. */
export function modelsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/models`;
}

/** Why a request could not be made, in words ("connection refused (ECONNREFUSED)"). */
export function networkWhy(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if ((error as { name?: unknown } | undefined)?.name === 'TimeoutError') {
    return `it did not answer within ${TIMEOUT_MS / 1000} s`;
  }
  const words: Record<string, string> = {
    ECONNREFUSED: 'nothing listens there (connection refused)',
    ENOTFOUND: 'its host name is not known (ENOTFOUND)',
    EAI_AGAIN: 'its host name could not be looked up (EAI_AGAIN)',
    ECONNRESET: 'the connection was reset',
    ETIMEDOUT: 'the connection timed out',
  };
  if (code !== undefined) {
    return `it could not be reached: ${words[code] ?? code}`;
  }
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return `it could not be reached: ${message}`;
}

/** `GET <baseUrl>/models`, with `apiKey` as a bearer token when given. */
export async function listModels(
  baseUrl: string,
  apiKey: string | undefined,
  fetchImpl: typeof fetch = fetch,
  timeoutMs: number = TIMEOUT_MS,
): Promise<Listing> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey) {
    headers.authorization = `Bearer ${apiKey}`;
  }
  let response: Response;
  try {
    response = await fetchImpl(modelsUrl(baseUrl), { headers, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return { kind: 'failed', why: networkWhy(error) };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return { kind: 'failed', why: networkWhy(error) };
  }
  if (response.status === 401 || response.status === 403) {
    return { kind: 'auth', status: response.status, detail: errorDetail(text) };
  }
  if (!response.ok) {
    const detail = errorDetail(text);
    return { kind: 'failed', why: `it answered ${response.status}${detail ? ` (${detail})` : ''}` };
  }
  if (text.length > MAX_BYTES) {
    return { kind: 'failed', why: 'its answer is too long to be a list of models' };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'failed', why: 'its answer is not JSON' };
  }
  const ids = parseModels(body);
  return ids === undefined ? { kind: 'failed', why: 'its answer is not a list of models' } : { kind: 'models', ids };
}
