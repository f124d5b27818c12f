"""Test helpers for dialogkit users: conversation driver, YAML test runner, scripted LLM server."""
