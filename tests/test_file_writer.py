"""Site files written on the writer's thread: in order, each callback after its file, a link into
the previous site replaced (never written through), a failure raised when the build waits."""

from __future__ import annotations

import os
import threading

import pytest

from leaderboard.render.file_writer import WAITING, BackgroundWriter


def test_files_are_written_in_the_order_handed_over(tmp_path):
    writer = BackgroundWriter()
    target = str(tmp_path / "page.html")
    for i in range(WAITING * 3):  # more than wait at once: the hand-over blocks, nothing is lost
        writer.write(target if i % 2 else str(tmp_path / f"{i}.html"), f"{i}".encode())
    writer.flush()
    assert (tmp_path / "page.html").read_text() == str(WAITING * 3 - 1)
    assert len(list(tmp_path.iterdir())) == WAITING * 3 // 2 + 1


def test_the_callback_runs_once_the_file_is_written(tmp_path):
    writer = BackgroundWriter()
    seen = []
    target = tmp_path / "a.html"
    writer.write(str(target), b"<p>a</p>", then=lambda: seen.append(target.read_bytes()))
    writer.flush()
    assert seen == [b"<p>a</p>"]


def test_a_link_into_the_previous_site_is_replaced_not_written_through(tmp_path):
    previous = tmp_path / "previous.html"
    previous.write_text("old")
    target = tmp_path / "new.html"
    os.link(previous, target)
    writer = BackgroundWriter()
    writer.write(str(target), b"new", replace=True)
    writer.flush()
    assert previous.read_text() == "old" and target.read_text() == "new"


def test_a_link_is_made_in_order_in_a_new_folder_and_a_later_write_replaces_it(tmp_path):
    previous = tmp_path / "previous.html"
    previous.write_text("old")
    kept, replaced = tmp_path / "new" / "kept.html", tmp_path / "new" / "replaced.html"
    writer = BackgroundWriter()
    writer.link(str(previous), str(kept), make_folder=True)
    writer.link(str(previous), str(replaced))
    writer.write(str(replaced), b"new", replace=True)
    writer.flush()
    assert os.stat(kept).st_ino == os.stat(previous).st_ino and kept.read_text() == "old"
    assert replaced.read_text() == "new" and previous.read_text() == "old"


def test_a_link_that_cannot_be_made_is_a_copy(tmp_path, monkeypatch):
    previous = tmp_path / "previous.html"
    previous.write_text("old")

    def refuse(*args, **kwargs):
        raise OSError("links not supported here")

    monkeypatch.setattr(os, "link", refuse)
    writer = BackgroundWriter()
    writer.link(str(previous), str(tmp_path / "kept.html"))
    writer.flush()
    assert (tmp_path / "kept.html").read_text() == "old"
    assert os.stat(tmp_path / "kept.html").st_ino != os.stat(previous).st_ino


def test_a_failure_is_raised_at_flush_and_what_follows_is_not_written(tmp_path):
    writer = BackgroundWriter()
    writer.write(str(tmp_path / "missing-folder" / "a.html"), b"a")
    writer.write(str(tmp_path / "b.html"), b"b")
    with pytest.raises(FileNotFoundError):
        writer.flush()
    assert not (tmp_path / "b.html").exists()
    writer.flush()  # the failure is raised once; the writer can be used again
    writer.write(str(tmp_path / "c.html"), b"c")
    writer.flush()
    assert (tmp_path / "c.html").read_text() == "c"


def _held(writer: BackgroundWriter, tmp_path) -> threading.Event:
    """The writer's thread held inside a callback until the event returned is set."""
    go, inside = threading.Event(), threading.Event()
    writer.write(str(tmp_path / "held.html"), b"held", then=lambda: (inside.set(), go.wait(30)))
    assert inside.wait(30)
    return go


def _in_thread(work) -> threading.Thread:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_links_never_wait_for_the_writer_while_contents_do(tmp_path):
    previous = tmp_path / "previous.html"
    previous.write_text("old")
    (tmp_path / "new").mkdir()
    writer = BackgroundWriter()
    go = _held(writer, tmp_path)
    # Many times more links than contents may wait: handed over at once, the writer's thread held.
    links = _in_thread(
        lambda: [writer.link(str(previous), str(tmp_path / "new" / f"{i}.html")) for i in range(WAITING * 4)]
    )
    links.join(30)
    assert not links.is_alive()
    # Contents: WAITING may wait; the next one waits for room.
    contents = _in_thread(lambda: [writer.write(str(tmp_path / f"c{i}.html"), b"c") for i in range(WAITING + 1)])
    contents.join(0.5)
    assert contents.is_alive()
    go.set()
    contents.join(30)
    assert not contents.is_alive()
    writer.flush()
    assert len(list((tmp_path / "new").iterdir())) == WAITING * 4
    assert all((tmp_path / f"c{i}.html").read_text() == "c" for i in range(WAITING + 1))


def test_after_a_failure_every_content_handed_over_is_dropped_without_waiting(tmp_path):
    writer = BackgroundWriter()
    writer.write(str(tmp_path / "missing-folder" / "a.html"), b"a")
    more = _in_thread(lambda: [writer.write(str(tmp_path / f"{i}.html"), b"x") for i in range(WAITING * 3)])
    more.join(30)
    assert not more.is_alive()  # the dropped ones gave their room back
    with pytest.raises(FileNotFoundError):
        writer.flush()
    assert list(tmp_path.iterdir()) == []


def test_flush_without_writes_does_nothing():
    BackgroundWriter().flush()


def test_a_new_folder_is_made_on_the_writers_thread(tmp_path):
    writer = BackgroundWriter()
    target = tmp_path / "entries" / "round" / "submitter" / "a.html"
    writer.write(str(target), b"a", make_folder=True)
    writer.write(str(target.with_name("b.html")), b"b")  # the folder is there by then
    writer.flush()
    assert target.read_text() == "a" and target.with_name("b.html").read_text() == "b"


def test_site_writer_makes_each_folder_once_and_keeps_files_in_new_folders(tmp_path):
    from leaderboard.render.model import SiteData
    from leaderboard.render.writer import SiteWriter, environment

    previous = tmp_path / "previous"
    (previous / "kept").mkdir(parents=True)
    (previous / "kept" / "old.html").write_text("old")
    data = SiteData([], {}, {}, [], [], [], [], None)
    site = SiteWriter(tmp_path / "site", environment(), data, jobs=1)
    site.previous = previous
    site.write("new/a.html", "a")  # its folder is made on the writer's thread
    site.write("kept/b.html", "b")
    site.keep("kept/old.html")  # the same folder, made here at once: the link needs it now
    site.flush()
    assert (tmp_path / "site" / "new" / "a.html").read_text() == "a"
    assert (tmp_path / "site" / "kept" / "old.html").read_text() == "old"
    assert (tmp_path / "site" / "kept" / "b.html").read_text() == "b"
    with pytest.raises(ValueError, match="outside the site"):
        site.write("../escape.html", "x")
