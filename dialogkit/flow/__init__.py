"""The bot file: schema, loading with positioned problems, compilation, drawing."""
