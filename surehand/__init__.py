"""The ``surehand`` command line (``cli``) and the terminal front end (``terminal``).

The launcher knows every front end: the language server (``lsp_server``),
the Agent Client Protocol agent (``acp_server``) and the terminal
(``surehand.terminal``). The terminal's modules, like the other front ends,
stand on the core (``agent``) and import no other front end.
"""
