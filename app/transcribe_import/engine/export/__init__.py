"""Export notebooks as a BagIt bag (docs/formats.md, "The export bag"); beside runs, never above."""
