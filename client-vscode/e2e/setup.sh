#!/usr/bin/env bash
# Set up the end-to-end test's tools: code-server (VS Code in a browser) and
# playwright-core from npm, Chromium and build dependencies from Debian.
# Idempotent: a second run checks and returns in a few seconds.
# Usage: bash client-vscode/e2e/setup.sh   (as root, as on CI)
set -euo pipefail
cd "$(dirname "$0")"

# Chromium drives the page; libkrb5-dev and pkg-config build code-server's
# `kerberos` module; ripgrep stands in for @vscode/ripgrep's download.
packages=(chromium libkrb5-dev pkg-config ripgrep)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "e2e setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The npm install is skipped when node_modules was installed from this
# package.json and lockfile and code-server's own postinstall finished (it
# leaves lib/vscode/node_modules).
stamp=node_modules/.surehand-e2e-installed
vscode=node_modules/code-server/lib/vscode
if [ -f "$stamp" ] && cat package.json package-lock.json | cmp -s - "$stamp" &&
  [ -e "$vscode/node_modules/@vscode/ripgrep/bin/rg" ] &&
  [ -d "$vscode/extensions/node_modules" ]; then
  echo "e2e setup: already done"
  exit 0
fi

# @vscode/ripgrep's postinstall downloads a prebuilt rg from GitHub, which is
# out of reach here; it uses a tarball already in its cache instead, so put
# Debian's rg there under the asset name it asks for (rg at the root).
case "$(uname -m)" in
  x86_64) target=x86_64-unknown-linux-musl ;;
  aarch64) target=aarch64-unknown-linux-musl ;;
  *) echo "e2e setup: no ripgrep target for $(uname -m)" >&2; exit 1 ;;
esac
cache="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
tarball="$cache/ripgrep-v13.0.0-10-$target.tar.gz"
if [ ! -s "$tarball" ]; then
  mkdir -p "$cache"
  tar -czf "$tarball" -C "$(dirname "$(command -v rg)")" rg
fi

# node-gyp builds the native modules against Debian's Node headers (nothing
# to download); npm_config_yes keeps npm from asking anything (no stdin on CI).
export npm_config_yes=true
if [ -f /usr/include/node/node_version.h ]; then
  export npm_config_nodedir=/usr
fi
echo "e2e setup: npm ci, then code-server's postinstall (builds native modules)"
npm ci --no-audit --no-fund --loglevel=error

# npm 11 runs only approved install scripts. package.json approves argon2's
# and denies code-server's, which runs here instead: it runs `npm install` in
# lib/vscode, whose native modules are approved in a user config. (Run by
# npm, the nested install would inherit the approval as an environment
# variable, which npm refuses for a project.) It checks npm's user agent for
# Node 20 and, as root, unsafe-perm.
log=node_modules/.surehand-postinstall.log
npmrc="$(mktemp)"
trap 'rm -f "$npmrc"' EXIT
cat "${npm_config_userconfig:-$HOME/.npmrc}" >"$npmrc" 2>/dev/null || true
native="@parcel/watcher,@vscode/deviceid,@vscode/ripgrep,@vscode/spdlog,kerberos"
native+=",native-watchdog,node-pty,@vscode/windows-process-tree,@vscode/windows-registry"
printf '\nallow-scripts=%s\n' "$native" >>"$npmrc"
(
  cd node_modules/code-server
  export npm_config_userconfig="$npmrc" npm_config_unsafe_perm=true
  export npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64 workspaces/false"
  sh ./postinstall.sh
) >"$log" 2>&1 || { tail -40 "$log" >&2; exit 1; }
cat package.json package-lock.json >"$stamp"
echo "e2e setup: done"
