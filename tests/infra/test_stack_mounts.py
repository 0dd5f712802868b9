"""What the Docker Engine leaves mounted is found from the kernel's mount table (no service needed)."""

from __future__ import annotations

from pathlib import Path

from streamt_devstack.docker import mounts_under


def test_mounts_under_finds_the_root_and_below_only(tmp_path):
    home = tmp_path / "stack dir" / "docker"
    table = tmp_path / "mountinfo"
    escaped = str(home).replace(" ", "\\040")
    table.write_text(
        "\n".join(
            [
                "22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
                f"90 22 252:0 {escaped}/data {escaped}/data rw,relatime - ext4 /dev/vda rw",
                f"91 22 0:4 net:[4026532] {escaped}/exec/netns/default rw shared:5 - nsfs nsfs rw",
                f"92 22 252:0 / {escaped}-other rw - ext4 /dev/vda rw",
                "short line",
            ]
        )
        + "\n"
    )
    assert mounts_under(home, str(table)) == [home / "data", home / "exec" / "netns" / "default"]
    assert mounts_under(home, str(tmp_path / "absent")) == []
    assert mounts_under(Path("/nonexistent-root"), str(table)) == []
