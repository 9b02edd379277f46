/**
 * code-server (VS Code in a browser) for the end-to-end test: a private
 * installation under one directory, started in its own process group and
 * stopped with the whole group (extension hosts and language servers
 * outlive the browser otherwise).
 *
 * Everything it writes goes under `root`: user data (settings.json first),
 * extensions, its config file and its XDG folders.
 */

import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const CODE_SERVER = join(HERE, 'node_modules', '.bin', 'code-server');

export class CodeServer {
  /**
   * @param {string} root  a fresh directory for everything code-server writes
   * @param {Record<string, unknown>} settings  the user's settings.json
   * @param {Record<string, string>} env  added to code-server's environment (the extension host and the language server inherit it)
   * @param {Record<string, unknown>} machine  the machine's settings.json (a remote window's "Remote" tab)
   */
  constructor(root, settings, env = {}, machine = {}) {
    this.root = root;
    this.userData = join(root, 'user-data');
    this.extensions = join(root, 'extensions');
    this.config = join(root, 'config.yaml');
    this.logFile = join(root, 'code-server.log');
    this.env = {
      ...process.env,
      XDG_CONFIG_HOME: join(root, 'xdg', 'config'),
      XDG_DATA_HOME: join(root, 'xdg', 'data'),
      XDG_CACHE_HOME: join(root, 'xdg', 'cache'),
      ...env,
    };
    mkdirSync(join(this.userData, 'User'), { recursive: true });
    mkdirSync(join(this.userData, 'Machine'), { recursive: true });
    mkdirSync(this.extensions, { recursive: true });
    this.writeSettings(settings);
    writeFileSync(join(this.userData, 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));
    writeFileSync(this.config, 'auth: none\ncert: false\n');
    this.child = undefined;
    this.url = undefined;
  }

  /** Write the user's settings.json (before the start). */
  writeSettings(settings) {
    writeFileSync(join(this.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  /** Where the extension's global storage is (its own Python environment is made there). */
  globalStorage(extensionId) {
    return join(this.userData, 'User', 'globalStorage', extensionId);
  }

  /** The common arguments: this installation's folders, no auth, no telemetry or update checks. */
  args() {
    return [
      '--config', this.config,
      '--user-data-dir', this.userData,
      '--extensions-dir', this.extensions,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
    ];
  }

  installExtension(vsix) {
    const result = spawnSync(CODE_SERVER, [...this.args(), '--force', '--install-extension', vsix], {
      env: this.env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (result.status !== 0) {
      throw new Error(`code-server --install-extension ${vsix} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout.trim();
  }

  /** Starts on a free port of 127.0.0.1; resolves with the URL once it listens. */
  start(timeoutMs = 60_000) {
    const log = createWriteStream(this.logFile);
    this.child = spawn(CODE_SERVER, [...this.args(), '--bind-addr', '127.0.0.1:0'], {
      env: this.env,
      detached: true, // its own process group, killed as one in stop()
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = this.child;
    return new Promise((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`code-server did not listen within ${timeoutMs} ms; see ${this.logFile}`)), timeoutMs);
      const read = (chunk) => {
        log.write(chunk);
        seen += chunk.toString();
        const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(seen);
        if (match && this.url === undefined) {
          this.url = match[1];
          clearTimeout(timer);
          resolve(this.url);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (this.url === undefined) {
          reject(new Error(`code-server exited (${code ?? signal}) before listening; see ${this.logFile}`));
        }
      });
    });
  }

  /** Kill the whole process group: TERM, then KILL what is left after `graceMs`. */
  async stop(graceMs = 3000) {
    const pid = this.child?.pid;
    if (pid === undefined) {
      return;
    }
    this.child = undefined;
    if (!signalGroup(pid, 'SIGTERM')) {
      return;
    }
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && signalGroup(pid, 0)) {
      await new Promise((r) => setTimeout(r, 100));
    }
    signalGroup(pid, 'SIGKILL');
  }

  /** Synchronous last resort (process 'exit' handlers cannot wait). */
  killNow() {
    if (this.child?.pid !== undefined) {
      signalGroup(this.child.pid, 'SIGKILL');
    }
  }
}

/** Signal process group `pid`; false when the group is gone. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
