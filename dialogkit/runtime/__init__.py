"""The turn pipeline: sessions, policy, responses, actions."""
