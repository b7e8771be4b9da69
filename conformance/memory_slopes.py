"""Guards the memory of `evalstudio score` and `evalstudio eval` against the next regression
(issue 25). `score`'s peak anonymous RSS must grow with the expected file only, by at most 3 MiB
per MiB of it; `eval`'s (on the offline demo agent, with --json and --junit) by at most 4 MiB
per MiB of evalset between 1,000 and 10,000 cases. A worker reads each batch's cases from the
store as it claims it and the report reads a verdict per case, so what grows is those verdicts
(about 1 MiB per MiB); holding the set whole, or every case run, measured 6 to 16. A small input
alone only measures the process's base, so two sizes are run and the slope between them is
checked; the slope is stable from machine to machine, unlike time. Each `eval` size is run three
times and its least peak taken: the allocator's high-water mark varies by several MiB from run
to run, which is why the sizes are ten times apart.

Usage: python memory_slopes.py EVALSTUDIO_BIN
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).parent
SCORE_SIZES = (8000, 32000)  # invocations
SCORE_SLOPE = 3.0
EVAL_SIZES = (1000, 10000)  # cases
EVAL_SLOPE = 4.0
EVAL_TRIES = 3


def peak_rss_mib(command):
    """Runs `command`; answers its peak anonymous RSS in MiB (its heap and stacks, sampled from
    /proc every few milliseconds). The file-backed pages of the binary are left out: how many of
    them a process maps depends on what the page cache holds, which varies by tens of MiB from
    run to run and machine to machine, while the anonymous memory is the process's own."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    status = pathlib.Path(f"/proc/{process.pid}/status")
    peak_kib = 0
    while process.poll() is None:
        try:
            text = status.read_text()
        except (FileNotFoundError, ProcessLookupError):
            break
        for line in text.splitlines():
            if line.startswith("RssAnon:"):
                peak_kib = max(peak_kib, int(line.split()[1]))
        time.sleep(0.005)
    code = process.wait()
    if code not in (0, 1):
        raise SystemExit(f"{command[0]} exited {code}: {process.stderr.read().decode()}")
    return peak_kib / 1024


def slope(name, points, limit):
    """Prints the slope between two (file MiB, peak MiB) points; answers whether it is within limit."""
    (small_file, small_rss), (large_file, large_rss) = points
    per_mib = (large_rss - small_rss) / (large_file - small_file)
    print(f"{name} peak anonymous RSS: {small_rss:.0f} MiB for a {small_file:.1f} MiB file, "
          f"{large_rss:.0f} MiB for {large_file:.1f} MiB: {per_mib:.2f} MiB per MiB (at most {limit})")
    return per_mib <= limit


def score_points(binary, tmp):
    points = []
    for invocations in SCORE_SIZES:
        pair = pathlib.Path(tmp) / f"pair{invocations}"
        subprocess.run([sys.executable, str(HERE / "gen_scoring_pair.py"), str(pair), str(invocations)],
                       check=True, stdout=subprocess.DEVNULL)
        expected = pair / "expected.evalset.json"
        command = [binary, "score", str(expected), str(pair / "actual.evalset.json"),
                   "--config", str(pair / "config.json"), "--json", str(pair / "result.json")]
        points.append((expected.stat().st_size / 2**20, peak_rss_mib(command)))
    return points


def eval_points(binary, tmp):
    points = []
    for cases in EVAL_SIZES:
        folder = pathlib.Path(tmp) / f"eval{cases}"
        folder.mkdir()
        evalset = folder / "demo.evalset.json"
        subprocess.run([sys.executable, str(HERE / "gen_demo_evalset.py"), str(evalset), str(cases)], check=True)
        # The least of several runs: how many connections and threads a run opens, and what the
        # allocator keeps, vary its peak.
        peaks = []
        for attempt in range(EVAL_TRIES):
            command = [binary, "eval", str(evalset), "--db", str(folder / f"runs{attempt}.db"),
                       "--json", str(folder / "result.json"), "--junit", str(folder / "junit.xml")]
            peaks.append(peak_rss_mib(command))
        points.append((evalset.stat().st_size / 2**20, min(peaks)))
        results = json.loads((folder / "result.json").read_text())["eval_case_results"]
        if len(results) != cases:
            raise SystemExit(f"eval --json holds {len(results)} case results, not {cases}")
    return points


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        score_ok = slope("score --json", score_points(binary, tmp), SCORE_SLOPE)
        eval_ok = slope("eval --json --junit", eval_points(binary, tmp), EVAL_SLOPE)
    sys.exit(0 if score_ok and eval_ok else 1)


if __name__ == "__main__":
    main()
