"""Guards `evalstudio score`'s memory against the next regression (issue 25): peak RSS must grow
with the expected file only, by at most 3 MiB per MiB of it. A small input alone only measures
the process's base, so two sizes are scored and the slope between them is checked; the slope is
stable from machine to machine, unlike time.

Usage: python score_memory.py EVALSTUDIO_BIN
"""

import os
import pathlib
import resource
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).parent
SIZES = (8000, 32000)  # invocations
SLOPE = 3.0


def peak_rss_mib(command):
    """Runs `command`; answers its peak RSS in MiB (the child's own, from wait4)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{command[0]} exited {code}: {process.stderr.read().decode()}")
    return usage.ru_maxrss / 1024


def main():
    binary = sys.argv[1]
    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for invocations in SIZES:
            pair = pathlib.Path(tmp) / str(invocations)
            subprocess.run([sys.executable, str(HERE / "gen_scoring_pair.py"), str(pair), str(invocations)],
                           check=True, stdout=subprocess.DEVNULL)
            expected = pair / "expected.evalset.json"
            command = [binary, "score", str(expected), str(pair / "actual.evalset.json"),
                       "--config", str(pair / "config.json"), "--json", str(pair / "result.json")]
            points.append((expected.stat().st_size / 2**20, peak_rss_mib(command)))
    (small_file, small_rss), (large_file, large_rss) = points
    slope = (large_rss - small_rss) / (large_file - small_file)
    print(f"score --json peak RSS: {small_rss:.0f} MiB for a {small_file:.1f} MiB expected file, "
          f"{large_rss:.0f} MiB for {large_file:.1f} MiB: {slope:.2f} MiB per MiB (at most {SLOPE})")
    sys.exit(0 if slope <= SLOPE else 1)


if __name__ == "__main__":
    main()
