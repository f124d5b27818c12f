"""Utterance -> Interpretation: language, entities, intents, conversational cues."""
