"""Files the package writes (skipbo_env/files.py): whole or not at all, never through a link,
never over a file unless the caller asks."""

from __future__ import annotations

import os

import numpy as np
import pytest

from skipbo_env.files import FileRefused, write_whole
from skipbo_env.players.checkpoints import write_card
from skipbo_env.players.value import save_value_net


def test_a_file_is_written_whole(tmp_path):
    path = tmp_path / "out.txt"
    write_whole(str(path), "hello")
    assert path.read_text() == "hello"
    assert os.listdir(tmp_path) == ["out.txt"]  # no temporary file left


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")

    def broken(f):
        f.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_whole(str(path), broken, replace=True)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]


def test_an_existing_file_is_replaced_only_when_asked(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")
    with pytest.raises(FileRefused, match="exists already"):
        write_whole(str(path), "new")
    assert path.read_text() == "old"
    write_whole(str(path), "new", replace=True)
    assert path.read_text() == "new"


@pytest.mark.parametrize("replace", [False, True])
def test_a_link_at_the_target_is_refused_and_what_it_points_to_is_kept(tmp_path, replace):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "out.txt"
    link.symlink_to(victim)
    with pytest.raises(FileRefused, match="symbolic link"):
        write_whole(str(link), "new", replace=replace)
    assert victim.read_text() == "precious" and link.is_symlink()
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere.txt")
    with pytest.raises(FileRefused, match="symbolic link"):
        write_whole(str(dangling), "new", replace=replace)
    assert not (tmp_path / "nowhere.txt").exists()


def test_a_planted_part_link_is_not_written_through_by_a_card_or_a_value_net(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    for name in ("card.json.part", "net.npz.part.npz", "net.npz.part"):
        (tmp_path / name).symlink_to(victim)
    write_card(str(tmp_path / "card.json"), {"kind": "value"})
    save_value_net(str(tmp_path / "net.npz"), [(np.zeros((1, 2)), np.zeros(1))])
    assert victim.read_text() == "precious"
    assert (tmp_path / "card.json").read_text().startswith("{")
    with np.load(tmp_path / "net.npz", allow_pickle=False) as data:
        assert sorted(data.files) == ["b0", "w0"]
