"""Package data of transcribe_import (icons, translations): transcribe_import.resources.

This folder stays at the top of the repository; pyproject.toml maps it into the package, and
the app reads it only through importlib.resources (see packaging/README.md).
"""
