"""Token accounting and the priority-trimmed context window sent to an LLM."""
