"""The OpenAI-compatible client: timeouts, retries, usage accounting."""
