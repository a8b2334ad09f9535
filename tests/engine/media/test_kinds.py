"""The one table of page-file kinds, and the tables derived from it."""

from __future__ import annotations

from PIL import Image

from transcribe_import.engine.media import kinds


def test_the_derived_tables_agree_with_the_kinds() -> None:
    assert [k.media_type for k in kinds.KINDS] == list(kinds.MEDIA_EXTENSIONS)
    assert {kinds.PDF, kinds.TIFF} == kinds.MULTI_PAGE_TYPES
    assert kinds.SUFFIX_TYPES[".jpe"] == kinds.JPEG and kinds.SUFFIX_TYPES[".tiff"] == kinds.TIFF
    assert set(kinds.SUFFIX_TYPES) == kinds.PAGE_FILE_SUFFIXES
    # Each kind's own extension is one of the names the walk takes for it.
    for k in kinds.KINDS:
        assert f".{k.extension}" in k.suffixes
        assert all(s == s.lower() and s.startswith(".") for s in k.suffixes)
    assert kinds.kind_name(kinds.WEBP) == "WebP image" and kinds.kind_name(kinds.PDF) == "PDF"


def test_every_image_kind_names_decoders_pillow_has() -> None:
    Image.init()
    for k in kinds.KINDS:
        if k.media_type == kinds.PDF:
            assert k.pil_formats == ()  # pdfium renders PDFs
        else:
            # The first is the opener; "MPO" (multi-picture JPEG) is what Pillow's JPEG
            # opener reports for such files, not an opener of its own.
            assert k.pil_formats[0] in Image.OPEN
            assert set(k.pil_formats[1:]) <= {"MPO"}
