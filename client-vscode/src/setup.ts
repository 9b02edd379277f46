/**
 * Setting up where tasks go, in one flow: **Surehand: Set Model Endpoint**
 * (also the first task's, when no endpoint is set) asks for the URL, asks
 * the endpoint for its models (`GET <url>/models`, with the key stored for
 * exactly that URL, else the one in the environment variable
 * `surehand.apiKeyEnv` names, as the server would send), asks for a key
 * right there when it answers 401 or 403 and tries again, and offers the
 * models it lists in a quick pick (or a name to type, saying why there is
 * no list). It saves `surehand.baseUrl` and `surehand.model` in the user
 * settings and the key, when one was given, in secret storage for that URL.
 * **Surehand: Set Model** is the second half alone.
 */

import * as vscode from 'vscode';
import { baseUrlProblem, normalizeBaseUrl, secretName } from './endpoint';
import { listModels, modelsUrl, type Listing } from './models';
import type { ServerManager } from './server';
import { SECTION } from './settings';
import { visible } from './visible';

export interface SetupParts {
  readonly secrets: vscode.SecretStorage;
  readonly server: ServerManager;
  readonly output: vscode.OutputChannel;
}

const ENDPOINT_TITLE = 'Surehand: Set Model Endpoint';
const MODEL_TITLE = 'Surehand: Set Model';
const KEY_TITLE = 'Surehand: Set API Key';

/** The endpoint tasks go to: the setting, else the one the user sets up now. */
export async function endpoint(parts: SetupParts): Promise<string | undefined> {
  return parts.server.configuredBaseUrl() ?? (await setEndpoint(parts));
}

/** Ask for the endpoint, then its model (and its key when it wants one); save them. */
export async function setEndpoint(parts: SetupParts): Promise<string | undefined> {
  const given = await vscode.window.showInputBox({
    title: ENDPOINT_TITLE,
    prompt:
      'The base URL of the OpenAI-compatible endpoint that surehand sends tasks to (saved as surehand.baseUrl ' +
      'in your user settings); its models are offered next. Nothing is sent anywhere before you set it.',
    placeHolder: 'e.g. http://localhost:8000/v1 or https://api.openai.com/v1',
    value: parts.server.configuredBaseUrl() ?? process.env.OPENAI_BASE_URL ?? '',
    ignoreFocusOut: true,
    validateInput: baseUrlProblem,
  });
  const baseUrl = normalizeBaseUrl(given);
  if (baseUrl === undefined) {
    return undefined;
  }
  const model = await chooseModel(parts, baseUrl);
  const config = vscode.workspace.getConfiguration(SECTION);
  await config.update('baseUrl', baseUrl, vscode.ConfigurationTarget.Global);
  parts.output.appendLine(`Endpoint set to ${baseUrl} (user settings); the settings now name ${parts.server.configuredBaseUrl() ?? 'none'}.`);
  await saveModel(parts, baseUrl, model);
  return baseUrl;
}

/** Offer the models the endpoint lists (setting the endpoint up first when there is none); save the one picked. */
export async function setModel(parts: SetupParts): Promise<void> {
  const baseUrl = parts.server.configuredBaseUrl();
  if (baseUrl === undefined) {
    await setEndpoint(parts);
    return;
  }
  await saveModel(parts, baseUrl, await chooseModel(parts, baseUrl));
}

async function saveModel(parts: SetupParts, baseUrl: string, model: string | undefined): Promise<void> {
  if (model !== undefined) {
    await vscode.workspace.getConfiguration(SECTION).update('model', model, vscode.ConfigurationTarget.Global);
    parts.output.appendLine(`Model set to ${model} (user settings).`);
  }
  // A new snapshot: the one taken before the update still holds the old value.
  const now = vscode.workspace.getConfiguration(SECTION).get<string>('model') || undefined;
  const text = now
    ? `surehand: tasks go to ${baseUrl}, model ${visible(now)}.`
    : `surehand: tasks go to ${baseUrl}; no model is set yet (surehand.model).`;
  void vscode.window.showInformationMessage(text, ...(now ? [] : ['Set Model'])).then((choice) => {
    if (choice === 'Set Model') {
      void vscode.commands.executeCommand('surehand.setModel');
    }
  });
}

/** The model for `baseUrl`: picked from its list, or typed when it has none; undefined when the user gave up. */
async function chooseModel(parts: SetupParts, baseUrl: string): Promise<string | undefined> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const current = config.get<string>('model') || undefined;
  let key = (await parts.secrets.get(secretName(baseUrl))) || undefined;
  const keyEnv = config.get<string>('apiKeyEnv') || 'OPENAI_API_KEY';
  let source = key !== undefined ? 'the key stored for it' : process.env[keyEnv] ? `the key in ${keyEnv}` : 'no key';
  key ??= process.env[keyEnv] || undefined;
  let tries = 0;
  for (;;) {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem>();
    pick.title = MODEL_TITLE;
    pick.placeholder = `Asking ${modelsUrl(baseUrl)} for its models…`;
    pick.busy = true;
    pick.ignoreFocusOut = true;
    const hidden = new Promise<'hidden'>((resolve) => pick.onDidHide(() => resolve('hidden')));
    pick.show();
    const listing: Listing | 'hidden' = await Promise.race([listModels(baseUrl, key), hidden]);
    if (listing === 'hidden') {
      pick.dispose();
      return undefined;
    }
    parts.output.appendLine(`Models at ${modelsUrl(baseUrl)} (${source}): ${said(listing)}`);
    if (listing.kind === 'models' && listing.ids.length > 0) {
      return pickModel(pick, hidden, baseUrl, listing.ids, current);
    }
    pick.dispose();
    if (listing.kind !== 'auth') {
      return typeModel(baseUrl, listing.kind === 'models' ? 'it lists no models' : listing.why, current);
    }
    const detail = listing.detail ? ` (${visible(listing.detail)})` : '';
    const given = await vscode.window.showInputBox({
      title: KEY_TITLE,
      prompt:
        `${modelsUrl(baseUrl)} answered ${listing.status}${detail}: it wants ${tries > 0 ? 'another' : 'an'} API key. ` +
        `The key is kept in VS Code's secret storage and sent only to ${baseUrl}.`,
      password: true,
      ignoreFocusOut: true,
    });
    if (given === undefined || given.trim() === '') {
      return typeModel(baseUrl, `it answered ${listing.status} and no key was given`, current);
    }
    key = given.trim();
    await parts.secrets.store(secretName(baseUrl), key);
    parts.output.appendLine(`API key for ${baseUrl} stored in secret storage.`);
    source = 'the key just stored for it';
    tries += 1;
  }
}

function said(listing: Listing): string {
  return listing.kind === 'models' ? `${listing.ids.length} listed` : listing.kind === 'auth' ? `${listing.status}, a key wanted` : listing.why;
}

/** The quick pick, now with the models; a typed name not in the list can be taken too. */
function pickModel(
  pick: vscode.QuickPick<vscode.QuickPickItem>,
  hidden: Promise<'hidden'>,
  baseUrl: string,
  ids: readonly string[],
  current: string | undefined,
): Promise<string | undefined> {
  const items: vscode.QuickPickItem[] = ids.map((id) => ({ label: visible(id), description: id === current ? 'current' : undefined }));
  const names = new Map(items.map((item, i) => [item, ids[i]]));
  pick.busy = false;
  pick.title = `${MODEL_TITLE}: ${ids.length} listed by ${baseUrl}`;
  pick.placeholder = `Pick the model for tasks (saved as surehand.model), or type another name`;
  pick.items = items;
  pick.activeItems = items.filter((_, i) => ids[i] === current);
  pick.onDidChangeValue((value) => {
    const typed = value.trim();
    pick.items =
      typed !== '' && !ids.includes(typed) ? [...items, { label: typed, description: 'not listed: use this name', alwaysShow: true }] : items;
  });
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      resolve(chosen === undefined ? undefined : (names.get(chosen) ?? chosen.label));
      pick.hide();
    });
    void hidden.then(() => {
      resolve(undefined);
      pick.dispose();
    });
  });
}

/** A model name typed in, when the endpoint gives no list (`why`). */
async function typeModel(baseUrl: string, why: string, current: string | undefined): Promise<string | undefined> {
  const typed = await vscode.window.showInputBox({
    title: MODEL_TITLE,
    prompt: `No list of models from ${modelsUrl(baseUrl)}: ${why}. Type the name of a model it serves (saved as surehand.model).`,
    placeHolder: 'e.g. gpt-4.1, qwen2.5-coder:14b',
    value: current ?? '',
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() === '' ? 'Type the name of a model' : undefined),
  });
  return typed === undefined || typed.trim() === '' ? undefined : typed.trim();
}
