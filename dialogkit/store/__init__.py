"""Session stores: memory://, sqlite:///path, redis://host:port/db."""
