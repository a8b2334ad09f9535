"""The window's pages, one module each."""
