"""Threadline as an MCP server (api/mcp/server.py)."""
