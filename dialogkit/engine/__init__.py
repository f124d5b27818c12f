"""The turn engine: typed turn context, policy, slot writes, look-ahead, context view, LLM layer."""
