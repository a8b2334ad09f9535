"""The lowest layer: errors, ids, clock, crash points, config and text rules every layer shares."""
