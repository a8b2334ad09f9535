"""Fixity over the years: the corpus re-hashed on a budget, every check kept, repairs."""
