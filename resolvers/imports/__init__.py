"""Importing a provider's own session file as a thread (docs/MODEL.md, "Session import")."""
