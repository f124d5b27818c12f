"""The ``dialogkit`` command line: chat, test, validate, graph, schema."""
