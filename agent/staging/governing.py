"""Files that change how tools run, not what the project's code does.

A proposal that adds or changes one of these reaches past the code under
review: the next task's commands, the editor, the shell, git or CI read it
(an accepted ``.surehand.toml`` widens what commands see; a ``.envrc``
runs in the person's shell; ``.gitattributes`` can name filters git runs).
Every review flags such a file with what it governs, and none accepts it
inside "accept all": the person accepts it on its own.

``governs(path)`` answers with that sentence, or None for ordinary files.
The rule reads the path only (its last parts), never the file system.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import PurePosixPath

# (pattern, what it governs). A pattern without "/" matches a file's name in
# any folder; one with "/" matches the path's last parts. First match wins.
_RULES: tuple[tuple[str, str], ...] = (
    (".surehand.toml", "surehand's own settings for this project (commands, environment, sandbox)"),
    (".vscode/*", "VS Code's settings, tasks and launch commands for this workspace"),
    (".idea/*", "JetBrains IDE settings and run configurations"),
    (".zed/*", "Zed's settings and tasks for this workspace"),
    (".helix/*", "Helix's settings and language servers for this workspace"),
    (".devcontainer/*", "the development container: its image, mounts and start-up commands"),
    (".dir-locals.el", "Emacs settings (and code) applied to every file below it"),
    (".nvim.lua", "Neovim code run when the folder is opened ('exrc')"),
    (".nvimrc", "Neovim code run when the folder is opened ('exrc')"),
    (".exrc", "Vim or Neovim commands run when the folder is opened"),
    (".envrc", "shell code direnv runs when you enter the folder"),
    (".env", "environment variables tools load for this project"),
    (".env.*", "environment variables tools load for this project"),
    (".git*", "how git treats this repository (ignores, attributes and filters, submodules)"),
    (".github/workflows/*", "a CI workflow: commands run with the repository's secrets"),
    (".github/actions/*", "a CI action: commands run with the repository's secrets"),
    (".gitlab-ci.yml", "the CI pipeline: commands run with the repository's secrets"),
    (".circleci/*", "the CI pipeline: commands run with the repository's secrets"),
    (".travis.yml", "the CI pipeline: commands run with the repository's secrets"),
    ("azure-pipelines.yml", "the CI pipeline: commands run with the repository's secrets"),
    ("Jenkinsfile", "the CI pipeline: commands run with the repository's secrets"),
    (".pre-commit-config.yaml", "hooks git runs before each commit"),
    ("pyvenv.cfg", "which Python interpreter this virtual environment runs"),
    ("*.pth", "code Python runs at every start of this environment"),
    ("sitecustomize.py", "code Python runs at every start"),
    ("usercustomize.py", "code Python runs at every start"),
    ("pip.conf", "where pip installs packages from"),
    ("pip.ini", "where pip installs packages from"),
    ("uv.toml", "how uv resolves and installs packages"),
    ("poetry.toml", "how Poetry resolves and installs packages"),
    (".pypirc", "where Python packages are uploaded, with credentials"),
    (".python-version", "which Python version tools pick"),
    (".tool-versions", "which tool versions asdf or mise run"),
    (".mise.toml", "which tools mise runs, and their environment"),
    ("mise.toml", "which tools mise runs, and their environment"),
    (".nvmrc", "which Node.js version tools pick"),
    (".node-version", "which Node.js version tools pick"),
    (".npmrc", "where npm installs packages from, with credentials and scripts"),
    (".yarnrc", "where Yarn installs packages from"),
    (".yarnrc.yml", "where Yarn installs packages from, and its plugins"),
    (".pnpmfile.cjs", "code pnpm runs while installing"),
    (".cargo/config", "how Cargo builds: its commands, registries and environment"),
    (".cargo/config.toml", "how Cargo builds: its commands, registries and environment"),
    ("rust-toolchain", "which Rust toolchain Cargo runs"),
    ("rust-toolchain.toml", "which Rust toolchain Cargo runs"),
    (".bundle/config", "how Bundler installs gems"),
    (".pdbrc", "commands the Python debugger runs when it starts"),
)


def governs(path: str) -> str | None:
    """What ``path`` (relative, POSIX) governs when it changes how tools run, else None."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts:
        return None
    for pattern, what in _RULES:
        wanted = pattern.split("/")
        if len(wanted) == 1:
            if fnmatchcase(parts[-1], pattern):
                return what
        elif any(
            all(
                fnmatchcase(part, want)
                for part, want in zip(parts[i : i + len(wanted)], wanted, strict=True)
            )
            for i in range(len(parts) - len(wanted) + 1)
        ):
            return what
    return None
