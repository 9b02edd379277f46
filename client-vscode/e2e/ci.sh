#!/usr/bin/env bash
# The VS Code end-to-end test as CI runs it, from a fresh clone: set up
# code-server and Chromium (setup.sh), build and package the extension for
# this machine's platform (the esbuild bundle, the server's wheel from the
# repository's pyproject.toml, and its dependencies' wheels for every
# supported Python, downloaded by pip: scripts/wheel.mjs), run the test
# (run.mjs), whose first start must need no download. Needs the repository's
# venv (.ci/run makes it first): it builds and downloads the wheels and runs
# the scripted model servers; the extension under test makes its own
# environment from the .vsix.
# Usage: bash client-vscode/e2e/ci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

echo "== e2e: setup"
bash e2e/setup.sh

echo "== e2e: build and package the extension"
npm ci --no-audit --no-fund --loglevel=error
version="$(node -p 'require("./package.json").version')"
case "$(uname -m)" in
  x86_64) target=linux-x64 ;;
  aarch64) target=linux-arm64 ;;
  *) echo "e2e: no package target for $(uname -m)" >&2; exit 1 ;;
esac
vsix="$PWD/surehand-$target-$version.vsix"
rm -f "$vsix"
# Its last lines: what the wheels came to, then "<vsix>: <n> files, <size> KiB".
npm run --silent package -- --target "$target" --out "$vsix" | grep -E '^(wheels for|/)'

echo "set up and packaged $vsix after $((SECONDS - start)) s"

echo "== e2e: VS Code (code-server + Playwright)"
SUREHAND_VSIX="$vsix" node e2e/run.mjs
echo "e2e: the VS Code part took $((SECONDS - start)) s"
