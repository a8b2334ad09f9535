"""The desktop window (PySide6): the only part of the package that imports Qt."""
