#!/usr/bin/env bash
# The VS Code end-to-end test as CI runs it, from a fresh clone: set up
# code-server and Chromium (setup.sh), build and package the extension (the
# esbuild bundle and the server's wheel from the repository's pyproject.toml),
# run the test (run.mjs). Needs the repository's venv (.ci/run makes it
# first): it builds the wheel and runs the scripted model servers; the
# extension under test makes its own environment from the .vsix.
# Usage: bash client-vscode/e2e/ci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

echo "== e2e: setup"
bash e2e/setup.sh

echo "== e2e: build and package the extension"
npm ci --no-audit --no-fund --loglevel=error
version="$(node -p 'require("./package.json").version')"
vsix="$PWD/surehand-$version.vsix"
rm -f "$vsix"
npm run --silent package -- --out "$vsix" | tail -1 # "<vsix>: <n> files, <size> KiB"
echo "set up and packaged $vsix after $((SECONDS - start)) s"

echo "== e2e: VS Code (code-server + Playwright)"
SUREHAND_VSIX="$vsix" node e2e/run.mjs
echo "e2e: the VS Code part took $((SECONDS - start)) s"
