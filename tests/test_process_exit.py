"""A finished `twinsim` command ends its process without Python's teardown (service/cli/process_exit.py), and must
end it as `sys.exit` would: the command's status, everything written to standard output and error delivered, the
exit handlers run, and a thread still working waited for."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def _leave(code: str, tmp_path: Path, before: str = "") -> subprocess.CompletedProcess:
    script = textwrap.dedent(f"""
        import atexit, sys, threading, time
        from service.cli.process_exit import leave
        atexit.register(lambda: print("handler ran", file=sys.stderr))
        {before}
        sys.stdout.write("x" * 200_000)  # more than a pipe holds: buffered until flushed
        leave({code})
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_the_status_the_output_and_the_exit_handlers_are_as_sys_exit_leaves_them(tmp_path):
    for code, status in (("None", 0), ("0", 0), ("2", 2)):
        done = _leave(code, tmp_path)
        assert (done.returncode, len(done.stdout), done.stderr) == (status, 200_000, "handler ran\n")
    done = _leave("'error: no such persona'", tmp_path)
    assert (done.returncode, done.stderr) == (1, "error: no such persona\nhandler ran\n")


def test_a_thread_still_working_is_waited_for(tmp_path):
    marker = tmp_path / "written"
    done = _leave(
        "0",
        tmp_path,
        before=f"threading.Thread(target=lambda: (time.sleep(0.5), open({str(marker)!r}, 'w').write('done'))).start()",
    )
    assert done.returncode == 0 and marker.read_text() == "done"
