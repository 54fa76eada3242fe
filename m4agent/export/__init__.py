"""Exports of m4agent's tasks to other engines (Harbor)."""
