"""Actions: the ``@action`` registry authors use, loading action modules, and the per-bot table."""
