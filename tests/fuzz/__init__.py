"""Fuzzing: mutated bot files and hostile utterances; every failure must be a FlowError or a reply."""
