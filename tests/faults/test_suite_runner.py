"""The warm sessions' runner itself (suite_runner.py): a session that dies does not take the next one with it."""

from concurrent.futures.process import BrokenProcessPool

import pytest
import suite_runner


def test_a_session_that_dies_takes_its_pool_but_not_the_next_session(tmp_path):
    """A session killed outright (a signal it could not catch) breaks the pool it ran in; the next
    session gets a pool of its own and plays."""
    (tmp_path / "test_dies.py").write_text("import os, signal\n\ndef test_dies():\n"
                                           "    os.kill(os.getpid(), signal.SIGKILL)\n")
    (tmp_path / "test_plays.py").write_text("def test_plays():\n    pass\n")
    with pytest.raises(BrokenProcessPool):
        suite_runner.start(tmp_path / "dies", [str(tmp_path / "test_dies.py")], 60, suite_runner.REAL_CLOCK).result(60)
    played = suite_runner.run(tmp_path / "plays", [str(tmp_path / "test_plays.py")], 60, suite_runner.REAL_CLOCK)
    assert played.ret == 0, played.stdout.str()
