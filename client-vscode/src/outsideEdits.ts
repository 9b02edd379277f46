/**
 * The user's settings.json edited outside VS Code, picked up.
 *
 * Desktop VS Code watches its settings file and reads it again when another
 * program writes it. VS Code for the Web with its own server does not:
 * code-server (4.100) reads the file in the browser through the remote file
 * system (`vscode-remote:<path>`), and a change made on the server's disk
 * never reaches its configuration (openvscode-server has the same gap), so
 * no extension, and no language server, hears of it until the window is
 * reloaded. This watches the file where the extension runs (on that server);
 * when it changes and VS Code has not read it again a moment later, it
 * makes VS Code read it, by writing the file's own bytes back through VS
 * Code's file service (a write VS Code always notices). The content is never
 * changed, and a content VS Code has already read is never written again.
 */

import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { settingsFileUris } from './settings';

/** How long VS Code has to notice a change itself. */
const NOTICE_MS = 1500;

export class OutsideEdits implements vscode.Disposable {
  private readonly file: string;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The content VS Code has read (or was made to). */
  private known: string | undefined;
  private readonly subscription: vscode.Disposable;

  /** `globalStorage`: the extension's global storage, `<profile>/globalStorage/<id>`, beside `<profile>/settings.json`. */
  constructor(
    globalStorage: vscode.Uri,
    private readonly log: (line: string) => void,
  ) {
    this.file = path.join(globalStorage.fsPath, '..', '..', 'settings.json');
    this.known = this.read();
    this.subscription = vscode.workspace.onDidChangeConfiguration(() => {
      this.known = this.read(); // VS Code read the file (or was changed by it)
    });
    try {
      // The folder, not the file: a program that replaces the file (write, then rename) is seen too.
      this.watcher = watch(path.dirname(this.file), (_event, name) => {
        if (name === null || name === path.basename(this.file)) {
          this.changed();
        }
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      this.watcher = undefined; // no settings folder here: nothing to watch
    }
  }

  dispose(): void {
    this.watcher?.close();
    clearTimeout(this.timer);
    this.subscription.dispose();
  }

  private read(): string | undefined {
    try {
      return createHash('sha256').update(readFileSync(this.file)).digest('hex');
    } catch {
      return undefined;
    }
  }

  private changed(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), NOTICE_MS);
  }

  private async check(): Promise<void> {
    const now = this.read();
    if (now === undefined || now === this.known) {
      return; // VS Code has read it, or it is what VS Code has
    }
    this.known = now;
    const disk = readFileSync(this.file);
    for (const uri of settingsFileUris(vscode.Uri.file(this.file).path).map((u) => vscode.Uri.from(u))) {
      try {
        const bytes = await vscode.workspace.fs.readFile(uri);
        if (!Buffer.from(bytes).equals(disk)) {
          continue; // another file by that name
        }
        await vscode.workspace.fs.writeFile(uri, bytes);
        this.log(`settings.json was changed outside VS Code, which did not read it again; it has now (${uri.toString()}).`);
        return;
      } catch {
        // not where VS Code keeps it
      }
    }
    this.log(`settings.json was changed outside VS Code, which did not read it again, and could not be made to (${this.file}).`);
  }
}
