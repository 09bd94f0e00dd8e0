"""Flat memory (issue #26): a finished test of the embedded run leaves next to nothing behind. A slice of the suites
(OCPP 1.6, 2.x and OCPI, both roles each) is played twice over in one process under tracemalloc
(``retained_memory.py``): the second pass meets warm caches, imported modules and registered use cases, so what
it adds is what finished tests keep — their connections, loops, parsed frames and token records must go with
them; their verdict, reason and pytest's report of them stay (the run's summary needs them)."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SLICE = ["suites/ocpp16/boot", "suites/ocpp2/datatransfer", "suites/ocpi/transport", "suites/ocpp/transport"]
KEPT_PER_TEST = 5_000   # bytes a finished test may leave (issue #26: <= 5 KB; ~1.4 KB of it is pytest's reports)


def test_a_finished_test_keeps_less_than_5_kb(tmp_path):
    out = tmp_path / "retained.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(Path(__file__).parent)]),
           "RETAINED_OUT": str(out), "RETAINED_PASSES": "2", "RETAINED_TOP": "12"}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", *SLICE, "-q", "-p", "no:cacheprovider", "-p", "retained_memory",
         "-p", "no:randomly", "--reports-dir", str(tmp_path / "reports"), f"--basetemp={tmp_path / 'tmp'}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    figures = json.loads(out.read_text())
    after, per_pass = figures["after"], figures["per_pass"]
    assert per_pass > 40 and len(after) == 2 * per_pass, f"{len(after)} tests played, {per_pass} per pass"
    kept = (after[-1] - after[per_pass - 1]) / per_pass
    where = "\n".join(f"  {t['size_diff'] / 1024:+.0f} KB in {t['count_diff']:+d} blocks at {t['where'][0]}"
                      for t in figures["top"])
    assert kept <= KEPT_PER_TEST, (f"the second pass of {per_pass} tests kept {kept / 1024:.1f} KB a test (at most "
                                   f"{KEPT_PER_TEST / 1024:.1f}); what it kept, largest first:\n{where}")
