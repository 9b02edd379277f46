"""surehand as an Agent Client Protocol agent: ``surehand acp`` (docs/acp.md).

A second front door on the same agent core as the language server and the
terminal (``agent``): the loop, the overlay, the sandboxed commands, the
landing and the review's facts are the core's; this package speaks ACP v1
over stdio with the official SDK (``acp``). The editor's unsaved text is
read through ``fs/read_text_file``; nothing is written before the person
accepts it, hunk by hunk, through ``session/request_permission``.
"""
