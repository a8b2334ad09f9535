"""Packaging, without building anything: package data, entry points, one version, Linux files."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import importlib.util
import inspect
import io
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import transcribe_import
from transcribe_import.gui import resources as gui_resources

REPO = Path(__file__).resolve().parents[2]
ICON_SIZES = (16, 32, 48, 64, 128, 256)
ICON_FILES = ["transcribe-import.svg"] + [f"transcribe-import-{s}.png" for s in ICON_SIZES]


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _icons() -> importlib.resources.abc.Traversable:
    return importlib.resources.files("transcribe_import.resources") / "icons"


@pytest.mark.parametrize("name", ICON_FILES)
def test_icons_are_package_resources(name: str) -> None:
    assert (_icons() / name).is_file(), f"{name} is not reachable through importlib.resources"


@pytest.mark.parametrize("size", ICON_SIZES)
def test_png_icons_have_their_size(size: int) -> None:
    with (_icons() / f"transcribe-import-{size}.png").open("rb") as f, Image.open(f) as im:
        assert im.format == "PNG"
        assert im.size == (size, size)
        assert im.mode == "RGBA"  # a transparent background, not a white square


@pytest.mark.usefixtures("qapp")  # QtSvg renders in a QGuiApplication
def test_png_icons_are_renders_of_the_svg() -> None:
    """The committed PNGs match a fresh render of the SVG (run packaging/make_icons.py if not)."""
    from PySide6.QtCore import QBuffer, QIODevice

    path = REPO / "packaging" / "make_icons.py"
    spec = importlib.util.spec_from_file_location("make_icons", path)
    assert spec is not None and spec.loader is not None
    make_icons = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_icons)
    for size in ICON_SIZES:
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        assert make_icons.render(size).save(buffer, "PNG")
        fresh = Image.open(io.BytesIO(bytes(buffer.data()))).convert("RGBA")
        committed = Image.open(make_icons.png_path(size)).convert("RGBA")
        worst = max(hi for _, hi in ImageChops.difference(committed, fresh).getextrema())
        assert worst <= 16, f"transcribe-import-{size}.png is stale (differs by {worst}/255)"


def test_resources_package_is_the_top_level_resources_folder_mapped_in() -> None:
    """Editable installs map resources/ to transcribe_import.resources (pyproject package-dir)."""
    config = _pyproject()["tool"]["setuptools"]
    assert config["package-dir"]["transcribe_import.resources"] == "resources"
    globs = config["package-data"]["transcribe_import.resources"]
    assert "icons/*.svg" in globs and "icons/*.png" in globs


def test_every_package_under_app_is_listed_in_pyproject() -> None:
    """pyproject lists packages (find cannot map resources/ in); a new subpackage must be added."""
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(REPO / "app").parts)
        for p in (REPO / "app").rglob("__init__.py")
    }
    assert on_disk | {"transcribe_import.resources"} == listed


def test_gui_resources_go_through_importlib_resources_not_the_source_tree() -> None:
    source = inspect.getsource(gui_resources)
    assert "importlib" in source and "resources.files(" in source
    assert "__file__" not in source and "parents[" not in source
    installed = Path(str(importlib.resources.files(gui_resources.PACKAGE)))
    assert installed == gui_resources.RESOURCES_DIR


@pytest.mark.usefixtures("qapp")
def test_app_icon_loads_from_any_traversable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app_icon() reads the PNGs through the Traversable API: here from inside a zip file."""
    archive = tmp_path / "resources.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name in ICON_FILES:
            z.writestr(f"icons/{name}", (_icons() / name).read_bytes())
    monkeypatch.setattr(gui_resources, "resource_root", lambda: zipfile.Path(archive))
    icon = gui_resources.app_icon()
    assert not icon.isNull()
    assert {(s.width(), s.height()) for s in icon.availableSizes()} == {(s, s) for s in ICON_SIZES}


@pytest.mark.usefixtures("qapp")
def test_app_icon_from_the_installed_package() -> None:
    from PySide6.QtCore import QSize

    icon = gui_resources.app_icon()
    assert not icon.isNull()
    assert icon.pixmap(QSize(48, 48)).size() == QSize(48, 48)


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_python_m_entry_point(flag: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "transcribe_import", flag],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    if flag == "--version":
        assert proc.stdout == f"transcribe-import {transcribe_import.__version__}\n"
    else:
        assert proc.stdout.startswith("usage: transcribe-import")
        assert "doctor" in proc.stdout and "--data-dir" in proc.stdout


def test_version_has_one_source() -> None:
    project = _pyproject()
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "transcribe_import.__version__"
    }
    assert importlib.metadata.version("transcribe-import") == transcribe_import.__version__
    assert project["project"]["scripts"]["transcribe-import"] == "transcribe_import.cli:main"


def test_metainfo_release_is_the_package_version() -> None:
    root = ET.parse(REPO / "packaging/linux/org.transcribe.TranscribeImport.metainfo.xml").getroot()
    assert root.findtext("id") == "org.transcribe.TranscribeImport"
    releases = [r.get("version") for r in root.iter("release")]
    assert releases and releases[0] == transcribe_import.__version__, (
        "add a <release> for the new version to the metainfo"
    )
    assert root.find("launchable").text == "transcribe-import.desktop"


def test_desktop_entry_names_the_command_and_the_icon() -> None:
    entry = (REPO / "packaging/linux/transcribe-import.desktop").read_text(encoding="utf-8")
    fields = dict(
        line.split("=", 1) for line in entry.splitlines() if "=" in line and line[0] != "#"
    )
    assert fields["Exec"].split()[0] == "transcribe-import"
    assert fields["Icon"] == "transcribe-import"
    assert (_icons() / f"{fields['Icon']}.svg").is_file()


def _bash_array(script: Path, name: str) -> set[str]:
    match = re.search(rf"^{name}=\((.*?)\)", script.read_text(encoding="utf-8"), re.S | re.M)
    assert match, f"no {name}=(...) in {script.name}"
    return set(match.group(1).split())


def test_build_installs_the_qt_libraries_dev_sh_does() -> None:
    dev = _bash_array(REPO / "packaging/dev.sh", "APT_PACKAGES")
    build = _bash_array(REPO / "packaging/build.sh", "APT_QT")
    assert dev <= build
