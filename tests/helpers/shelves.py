"""Folders of page images, as scanned notebooks come off a shelf.

Every page file is a real image from ``media_factory.make_image`` with its own label
drawn on it, so no two pages of a shelf share their bytes (the builders check it: a
duplicate would be skipped by the duplicate check and change what a test proves).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from PIL import Image

from media_factory import make_image

PAGE_SIZE = (320, 440)


def make_pages(
    folder: Path,
    count: int,
    *,
    name: str = "page {i}.jpg",
    start: int = 1,
    size: tuple[int, int] = PAGE_SIZE,
    tag: str = "",
) -> list[Path]:
    """``count`` page images ``folder/name.format(i=...)`` for i = start, start+1, ...

    The format follows the name's suffix; each page's label is ``tag`` + its file stem.
    """
    paths = []
    for i in range(start, start + count):
        path = folder / name.format(i=i)
        paths.append(make_image(path, f"{tag}{path.stem}", size))
    assert_distinct(paths)
    return paths


def make_shelf(
    root: Path,
    notebooks: int = 3,
    pages: int = 3,
    *,
    folder: str = "notebook {n}",
    name: str = "page {i}.jpg",
    size: tuple[int, int] = PAGE_SIZE,
    tag: str = "",
) -> Path:
    """``root/folder.format(n=...)/name.format(i=...)`` for n and i counted from 1; ``root``.

    ``tag`` starts every label: give two shelves meant for one corpus different tags.
    """
    made = []
    for n in range(1, notebooks + 1):
        made += make_pages(root / folder.format(n=n), pages, name=name, size=size, tag=f"{tag}{n}/")
    assert_distinct(made)
    return root


def make_png_shelf(root: Path, notebooks: int, pages: int = 2) -> Path:
    """``root/Notebook 01/p1.png``...: small PNG pages, quick to scan and commit in the window.

    A different colour per page and notebook, so no two files share their bytes.
    """
    for n in range(notebooks):
        folder = root / f"Notebook {n + 1:02}"
        folder.mkdir(parents=True)
        for p in range(pages):
            Image.new("RGB", (40, 56), (n * 7 % 256, p * 11 % 256, 200)).save(
                folder / f"p{p + 1}.png"
            )
    return root


def assert_distinct(paths: Iterable[Path]) -> None:
    """No two of ``paths`` have the same bytes."""
    seen: dict[str, Path] = {}
    for p in paths:
        sha = hashlib.sha256(p.read_bytes()).hexdigest()
        assert sha not in seen, f"{p} has the same bytes as {seen[sha]}"
        seen[sha] = p


# A diary whose names give the day first and a page number beside it (issue #24: once
# committed as p5, p1, p2, p3, p6, p4): in page order, which is also the order of the dates.
DAY_FIRST = [
    "02.05.1931 p1.jpg",
    "13.05.1931 p2.jpg",
    "20.05.1931 p3.jpg",
    "28.05.1931 p4.jpg",
    "01.06.1931 p5.jpg",
    "12.06.1931 p6.jpg",
]
