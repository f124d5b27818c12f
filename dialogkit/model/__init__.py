"""Plain data shared by every layer: sessions, interpretations, replies. Imports nothing of dialogkit."""
