"""Every text the model reads from the server, in one place.

The server speaks to the model only through notes given with the next task
(``Session.tell``); what the user decided about a proposal is worded by the
agent (``agent.messages``, ``Review.for_model``). Tests pin these texts.
"""

from __future__ import annotations

PREVIOUS_TASK_CANCELLED = "The user cancelled the previous task; its changes were discarded."
