"""``python -m lsp_server``: the language server on stdio (or ``--tcp HOST:PORT``)."""

import sys

from lsp_server.cli import serve_main

sys.exit(serve_main())
