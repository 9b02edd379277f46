"""Configuration: the settings, where each came from, and the words for them.

``settings.Settings`` is every setting with its default and ceiling;
``config_file`` reads the user's and the project's files (a project may
only tighten, unless trusted), ``flags`` the command line's, ``endpoint``
resolves where model requests go; ``command_line`` parses a command and
checks it against the allowlist; ``settings_table`` writes the reference
table of ``docs/configuration.md``.

Imports the shared words and ``agent.staging.workspace``'s errors; nothing
of the loop, the models, the tools or command execution.
"""
