/** Activation and deactivation only; the parts live in `surehand.ts`. */

import type * as vscode from 'vscode';
import { Surehand } from './surehand';

let surehand: Surehand | undefined;

export function activate(context: vscode.ExtensionContext): void {
  surehand = new Surehand(context);
  void surehand.start(); // the commands work meanwhile: they say when the server is not up yet
}

export async function deactivate(): Promise<void> {
  await surehand?.dispose();
  surehand = undefined;
}
