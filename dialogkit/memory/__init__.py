"""Working memory: entity tracking, reference resolution, ticket summaries, memory actions."""
