"""The fast entry-point reader agrees with importlib.metadata, and the fast range check with packaging."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from streamt.entry_points import find_entry_points, from_importlib_metadata
from streamt.plugins import _version_in_range
from streamt_testing import write_distribution


def test_the_reader_agrees_with_importlib_metadata_on_this_environment() -> None:
    fast = sorted(find_entry_points("streamt"))
    reference = sorted(from_importlib_metadata("streamt"))
    assert len(fast) >= 12  # every workspace plugin is installed in the dev environment
    assert fast == reference


def test_the_first_distribution_of_a_name_on_the_path_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write_distribution(first, "shadowed", module="mod_a", source="", version="2.0")
    write_distribution(second, "Shadowed", module="mod_b", source="", version="1.0")
    paths = [str(first), str(second)]
    assert [(ep.value, ep.version) for ep in find_entry_points("streamt", paths)] == [("mod_a", "2.0")]
    assert sorted(find_entry_points("streamt", paths)) == sorted(from_importlib_metadata("streamt", paths))


def test_other_groups_and_comments_are_ignored(tmp_path: Path) -> None:
    site = write_distribution(tmp_path, "multi", module="multi_mod", source="x = 1\n")
    (next(tmp_path.glob("*.dist-info")) / "entry_points.txt").write_text(
        "[console_scripts]\nmulti = multi_mod:main\n\n# comment\n[streamt]\nmine = multi_mod:x [extra]\n"
    )
    (ep,) = find_entry_points("streamt", [str(site)])
    assert (ep.name, ep.value) == ("mine", "multi_mod:x")
    sys.path.insert(0, str(site))
    try:
        assert ep.load() == 1
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("multi_mod", None)


def test_an_egg_info_directory_is_read_too(tmp_path: Path) -> None:
    egg = tmp_path / "legacy_plugin.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.2\nName: legacy-plugin\nVersion: 0.3\n")
    (egg / "entry_points.txt").write_text("[streamt]\nlegacy = legacy_mod\n")
    (egg / "requires.txt").write_text("streamt-core>=0.1,<0.2\n\n[dev]\npytest\n")
    (ep,) = find_entry_points("streamt", [str(tmp_path)])
    assert (ep.dist_name, ep.version) == ("legacy-plugin", "0.3")
    assert ep.requires == ("streamt-core>=0.1,<0.2", "pytest; dev")


VERSIONS = ["0.1", "0.1.0", "0.1.5", "0.2", "0.2.0", "1.0", "1.2.3", "10.0"]
RANGES = [
    ">=0.1,<0.2",
    ">=0.1.0,<0.2.0",
    ">0.1",
    "<=0.2",
    "==0.1",
    "!=0.1.0",
    "~=0.1",
    "~=0.1.2",
    "~=1.2",
    ">=1,<2",
    "==1.2.3",
    ">=0.2,!=1.0",
]


@pytest.mark.parametrize("requirement", RANGES)
@pytest.mark.parametrize("version", VERSIONS)
def test_the_fast_range_check_agrees_with_packaging(version: str, requirement: str) -> None:
    assert _version_in_range(version, requirement) is SpecifierSet(requirement).contains(version, prereleases=True)


@pytest.mark.parametrize(
    ("version", "requirement", "expected"),
    [("0.1.0", ">=0.1.dev0,<0.2", True), ("0.2.0rc1", "<0.2", False), ("0.1.0", "==0.1.*", True)],
)
def test_other_ranges_fall_back_to_packaging(version: str, requirement: str, expected: bool) -> None:
    assert _version_in_range(version, requirement) is expected


@pytest.mark.parametrize("requirement", [">>0.1", "~=1", "latest"])
def test_invalid_ranges_are_none(requirement: str) -> None:
    assert _version_in_range("0.1.0", requirement) is None
