/**
 * Keeps the API key out of what is logged. Free of the `vscode` module.
 *
 * The key goes to the server in `initializationOptions`, which the client's
 * message trace (`surehand.trace.server`) would print; the output channel
 * the client writes to passes every line through `redact`.
 */

/** `text` with `secret` (raw or JSON-escaped) replaced by "***". */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) {
    return text;
  }
  const escaped = JSON.stringify(secret).slice(1, -1);
  return text.split(secret).join('***').split(escaped).join('***');
}
