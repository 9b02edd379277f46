"""The model adapters: one protocol (``model.ModelClient``) and what speaks it.

``openai_client`` talks to any OpenAI-compatible endpoint (``turn_builder``
reads its answers in every wire shape seen in the field, ``content_calls``
the tool calls some models write as text); ``scripted`` replays a script or
a recorded trace, for tests and the demo.

Imports the shared words (``agent.conversation``, ``agent.messages``,
``agent.trace``) and ``agent.config``; nothing of the loop, the tools or
the workspace.
"""
