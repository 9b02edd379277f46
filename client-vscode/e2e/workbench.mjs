/**
 * Driving VS Code's workbench in the browser with Playwright, the way a
 * person does: the command palette, quick open, the input box, CodeLenses,
 * notifications, the status bar. Every selector and every title the test
 * relies on is in UI below, in one place.
 */

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** VS Code's DOM (1.100) and the extension's titles (client-vscode/package.json, src/review/lenses.ts). */
export const UI = {
  workbench: '.monaco-workbench',
  quickInputBox: '.quick-input-widget .quick-input-box input',
  quickInputRow: '.quick-input-widget .quick-input-list .monaco-list-row',
  quickInputLabel: '.label-name',
  editorTab: '.tabs-container .tab',
  editorLines: '.monaco-editor .view-lines',
  codeLens: '.monaco-editor .codelens-decoration',
  toast: '.notifications-toasts .notification-toast',
  toastMessage: '.notification-list-item-message',
  dialog: '.monaco-dialog-box',
  dialogMessage: '.monaco-dialog-box .dialog-message-text',
  dialogDetail: '.monaco-dialog-box .dialog-message-detail',
  dialogButton: '.monaco-dialog-box .monaco-button',
  trustButtons: ['Yes, I trust the authors', 'Trust Folder & Continue'],
  statusItem: '.statusbar-item',
  activeTab: '.editor-group-container.active .tab.active',
  panel: '.part.panel',
  diffEditor: '.monaco-diff-editor',
  toastButton: '.monaco-button',
  saveCommand: 'File: Save',
  saveAllCommand: 'File: Save All Files',
  closeEditorCommand: 'View: Close Editor',
  // The extension.
  askCommand: 'Surehand: Ask…',
  setKeyCommand: 'Surehand: Set API Key',
  setEndpointCommand: 'Surehand: Set Model Endpoint',
  undoTaskCommand: 'Surehand: Undo Last Task',
  surehandStatus: '.statusbar-item:has-text("surehand")',
  changesView: '.pane:has(.pane-header:has-text("Surehand: Changes"))',
  foldersHeader: '.pane:has(.explorer-folders-view) > .pane-header',
  // A tree row's label and description.
  rowLabel: '.label-name',
  rowDescription: '.label-description',
  testsHeadline: (short) => `tests: ${short}`,
  // The review's keys (package.json), as Playwright presses them.
  keys: {
    acceptHunk: 'Control+Alt+Y',
    rejectHunk: 'Control+Alt+N',
    next: 'Alt+F5',
    previous: 'Shift+Alt+F5',
    rejectFile: 'Control+Alt+Shift+N',
  },
  serverRunning: '.statusbar-item:has(.codicon-sparkle):has-text("surehand")',
  serverStopped: '.statusbar-item:has(.codicon-warning):has-text("surehand")',
  reviewStatus: (left) => `.statusbar-item:has-text("surehand: review ${left}")`,
  hunkTitle: (label) => `surehand: ${label}`,
  // The added lines: a comment thread's zone widget, its head "surehand: <label> (<summary>)".
  addedLines: '.monaco-editor .review-widget',
  addedTitle: (label, summary) => `surehand: ${label} (${summary})`,
  accept: 'Accept',
  reject: 'Reject',
  decided: (decision, label) => `${decision === 'accept' ? 'Accepted' : 'Rejected'}: ${label}`,
};

const BROWSER_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchBrowser(chromium, executablePath) {
  return chromium.launch({ executablePath, args: BROWSER_ARGS, headless: true });
}

export class Workbench {
  constructor(page, screenshotDir) {
    this.page = page;
    this.screenshotDir = screenshotDir;
    this.shots = 0;
    mkdirSync(screenshotDir, { recursive: true });
  }

  /** A numbered screenshot of the whole window (or of `locator`); returns its path. */
  async screenshot(name, locator = undefined) {
    this.shots += 1;
    await this.page.mouse.move(700, 700, { steps: 4 }); // no hover tooltip in the picture
    const path = join(this.screenshotDir, `${String(this.shots).padStart(2, '0')}-${name}.png`);
    await (locator ?? this.page).screenshot({ path });
    return path;
  }

  async open(url, timeout = 60_000) {
    await this.page.goto(url);
    await this.page.waitForSelector(UI.workbench, { timeout });
    await this.dismissTrust();
  }

  /** Answers the workspace trust dialog with "trust", if it shows within `timeout`. */
  async dismissTrust(timeout = 3000) {
    const names = UI.trustButtons.map((name) => new RegExp(`^${escape(name)}$`));
    const buttons = names.map((name) => this.page.locator(UI.dialogButton, { hasText: name }));
    try {
      await Promise.any(buttons.map((b) => b.first().waitFor({ state: 'visible', timeout })));
    } catch {
      return false;
    }
    for (const button of buttons) {
      if (await button.first().isVisible()) {
        await button.first().click();
        return true;
      }
    }
    return false;
  }

  /** Quick open (the palette without its ">"): type `name`, pick the row for it. */
  async openFile(name, timeout = 20_000) {
    await this.palette('');
    await this.page.keyboard.type(name);
    await this.pick(name, timeout, false);
    await this.page.locator(UI.editorTab, { hasText: name }).first().waitFor({ timeout });
  }

  /** F1, type the command's title, run the row whose label is exactly `title`. */
  async runCommand(title, timeout = 20_000) {
    await this.palette('>');
    await this.page.keyboard.type(title);
    await this.pick(title, timeout, true);
  }

  /** F1, type the command's title, move down to its row with the arrow keys, press Enter (the keyboard only). */
  async runCommandByKeyboard(title, timeout = 20_000) {
    await this.palette('>');
    await this.page.keyboard.type(title);
    const focused = this.page.locator(`${UI.quickInputRow}.focused ${UI.quickInputLabel}`).first();
    await focused.waitFor({ state: 'visible', timeout });
    for (let i = 0; i < 30; i++) {
      if ((await focused.innerText()).trim() === title) {
        await this.page.keyboard.press('Enter');
        return;
      }
      await this.page.keyboard.press('ArrowDown');
    }
    throw new Error(`no row "${title}" in the palette`);
  }

  /** The label of the active editor's tab. */
  async activeTab() {
    return (await this.page.locator(UI.activeTab).first().innerText()).trim();
  }

  /** Waits until the active tab's label contains `name`. */
  async waitActiveTab(name, timeout = 15_000) {
    await this.page.locator(UI.activeTab, { hasText: name }).first().waitFor({ timeout });
  }

  /** The first notification toast whose text matches `pattern` (a locator). */
  toast(pattern) {
    return this.page.locator(UI.toast, { hasText: pattern }).first();
  }

  /** Type into the input box titled `title` (the command's own, not the palette) and press Enter. */
  async answerInput(title, text, timeout = 20_000) {
    await this.page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor({ state: 'visible', timeout });
    const box = this.page.locator(UI.quickInputBox);
    await box.fill(text);
    await this.page.keyboard.press('Enter');
    await this.page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor({ state: 'hidden', timeout });
  }

  /** The message under the input box titled `title` (its prompt, or the validation's words), once it shows. */
  async inputPrompt(title, timeout = 20_000) {
    await this.page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor({ state: 'visible', timeout });
    const message = this.page.locator('.quick-input-widget .quick-input-message').first();
    await message.waitFor({ state: 'visible', timeout });
    return (await message.innerText()).trim();
  }

  /** The rows of the quick pick titled `title`, once it has them (it is busy until then). */
  async pickRows(title, timeout = 20_000) {
    await this.page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor({ state: 'visible', timeout });
    await this.page.locator(`${UI.quickInputRow} ${UI.quickInputLabel}`).first().waitFor({ state: 'visible', timeout });
    return (await this.page.locator(`${UI.quickInputRow} ${UI.quickInputLabel}`).allInnerTexts()).map((t) => t.trim());
  }

  /** Hide the notification toasts now shown (Escape, as a person would), so the next toast is not mistaken for them. */
  async dismissToasts(timeout = 5000) {
    if ((await this.page.locator(UI.toast).count()) === 0) {
      return;
    }
    await this.page.keyboard.press('Escape');
    await this.page.locator(UI.toast).first().waitFor({ state: 'detached', timeout });
  }

  async waitFor(selector, timeout) {
    await this.page.locator(selector).first().waitFor({ state: 'visible', timeout });
  }

  /** The CodeLens row (the title lens and its action links) whose text contains `title`. */
  codeLens(title) {
    return this.page.locator(UI.codeLens, { hasText: title });
  }

  /** Click the lens `action` ("Accept", "Reject", ...) in the row whose text contains `title`. */
  async clickLens(title, action, timeout = 30_000) {
    const row = this.codeLens(title).first();
    await row.waitFor({ state: 'visible', timeout });
    await row.locator('a', { hasText: new RegExp(`^\\s*${escape(action)}\\s*$`) }).first().click();
  }

  /** Resolves with the text of the first notification toast that matches `pattern`. */
  async notification(pattern, timeout = 30_000) {
    const toast = this.page.locator(UI.toast, { hasText: pattern }).first();
    await toast.waitFor({ state: 'visible', timeout });
    return (await toast.locator(UI.toastMessage).first().innerText()).trim();
  }

  /** The texts of every notification toast now shown (for failure messages). */
  async notifications() {
    return this.page.locator(`${UI.toast} ${UI.toastMessage}`).allInnerTexts();
  }

  /** The status bar's items as text (for failure messages). */
  async statusBar() {
    return (await this.page.locator(UI.statusItem).allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  }

  async palette(prefix) {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    const box = this.page.locator(UI.quickInputBox);
    await box.waitFor({ state: 'visible', timeout: 10_000 });
    await box.fill(prefix);
  }

  /** Click the row whose label is `label` (exact) or contains it. */
  async pick(label, timeout, exact) {
    const name = exact ? new RegExp(`^\\s*${escape(label)}\\s*$`) : label;
    const row = this.page
      .locator(UI.quickInputRow)
      .filter({ has: this.page.locator(UI.quickInputLabel, { hasText: name }) })
      .first();
    try {
      await row.waitFor({ state: 'visible', timeout });
    } catch (error) {
      const rows = await this.page.locator(`${UI.quickInputRow} ${UI.quickInputLabel}`).allInnerTexts();
      throw new Error(`no row "${label}" in the quick pick (rows: ${JSON.stringify(rows)}): ${error.message}`);
    }
    await row.click();
    await this.page.mouse.move(700, 700); // off what opens under the pointer (a tab's hover would show)
  }
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
