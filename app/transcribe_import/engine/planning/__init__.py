"""Planning: scan, adapters, the plan document, ordering, edits, duplicates and validation."""
