"""The import engine: corpus, notebook transactions, media, recovery. Never imports Qt."""
