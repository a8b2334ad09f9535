"""Storage: the one I/O module, locks, the corpus and its index, notebook manifests, quarantine."""
