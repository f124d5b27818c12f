"""Every user-facing phrase in both languages, and the labels of flows, slots and values."""
