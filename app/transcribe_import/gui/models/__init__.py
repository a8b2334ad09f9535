"""Qt item models: thin adapters over the engine's plain data."""
