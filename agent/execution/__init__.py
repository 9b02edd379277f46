"""Running commands: the shadow the command sees, and the sandbox that contains it.

``runner.ShadowRunner`` brings the shadow up to date with the staged
workspace and runs a command in it: an overlay of the workspace
(``shadow_overlay``) where the kernel allows, else a copy (``shadow``,
``shadow_scan``, ``shadow_changes``, ``shadow_owner``), inside the sandbox
(``sandbox``: bubblewrap on Linux) with the layout and environment
``command_layout`` and ``command_env`` give it.

Imports ``agent.config`` and ``agent.staging`` (the overlay it syncs);
nothing of the loop, the tools or the models.
"""
