"""dialogkit: declarative YAML flows compiled into state machines, with working memory."""
