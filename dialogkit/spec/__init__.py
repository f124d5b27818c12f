"""The bot file: schema, YAML with positions, static checks, compilation into machines, drawing."""
