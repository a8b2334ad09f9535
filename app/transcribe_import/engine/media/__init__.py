"""Media: page-file kinds (no decoder import), byte sniffing, and decoding/rendering."""
