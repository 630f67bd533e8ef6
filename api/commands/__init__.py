"""Mutations as plain functions, one module per area (threads, runs, handoffs, lineage).

Each takes a transaction and the caller's `Caller` and does the same four steps: lock
the thread and read its state, let `resolvers/` decide and plan the writes (reading run
content only where a handoff needs it), and apply the plan in one statement. Receipts
(`api.commands.receipts`) wrap them so a commandId is acted on once.
"""
