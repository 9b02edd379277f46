"""The agent loop: model client, tools, workspace overlay, budgets, traces."""
