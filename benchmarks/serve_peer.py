"""What one request costs the server: the trivial endpoint and the JSON feed, old code and new.

    benchmarks/alternate.sh /tmp/old . 3 "$PWD/benchmarks/serve_peer.py" --seconds 5
    .venv/bin/python benchmarks/serve_peer.py [--seconds 6] [--data-dir var/serve-bench]

Measures ``/api/version`` (the trivial peer: routing, middleware and JSON, no database) and
``/api/daily_papers`` (the JSON feed, read from the database), served by uvicorn in its own
process as ``benchmarks/serve.py`` serves them; ``benchmarks/alternate.sh`` runs it on an older
checkout and this one in turn, so the same endpoints are measured against the older code under
the same load. For each endpoint it prints requests/s at 64 connections and p50 latency at 1
connection (``wrk``), and the server process's CPU time per request over the 64-connection run
(user plus system time from ``/proc``, which the machine's other load moves less than it moves
throughput); then the one-minute load average.

The data directory (relative to the tree under test) is prepared by that tree's own
``benchmarks.serve.prepare`` and reused, since old and new schemas may differ. Only what every
checkout has is used (``prepare`` and ``serve`` of ``benchmarks.serve``, the corpus paths of
``benchmarks.corpus_data``), imported only once the run starts, so an older tree without this
file is measured by running it by its path.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ENDPOINTS = (("version", "/api/version"), ("feed", "/api/daily_papers"))
RATE_CONNECTIONS = 64
WARM_REQUESTS = 20
DAYS = 7
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class WrkRun:
    requests_per_second: float
    requests: int
    p50_ms: float
    errors: bool


@dataclass(frozen=True)
class EndpointCost:
    name: str
    requests_per_second: float
    cpu_us_per_request: float
    p50_ms_at_one: float
    errors: bool


def main() -> None:
    args = _parse_args()
    if shutil.which("wrk") is None:
        sys.exit("benchmarks/serve_peer.py needs wrk (Debian: apt-get install wrk)")
    _without_script_folder()
    costs = _measure(args.data_dir, args.backend, args.seconds)
    for cost in costs:
        print(_result_line(cost))
    print(f"RESULT load={os.getloadavg()[0]:.2f}")


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=6, help="length of each wrk run")
    parser.add_argument("--backend", choices=("torch", "onnx-int8"), default="onnx-int8")
    parser.add_argument("--data-dir", type=Path, default=Path("var/serve-bench"))
    return parser.parse_args()


def _without_script_folder() -> None:
    """Run by its path, Python puts this file's folder first on ``sys.path``; there
    ``benchmarks/digest.py`` would hide the ``digest`` package of the tree under test."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]


def _measure(data_dir: Path, backend: str, seconds: int) -> list[EndpointCost]:
    # Imported here, after the path is fixed, from the tree on PYTHONPATH.
    from app.core.config import get_settings
    from benchmarks import serve as bench
    from benchmarks.corpus_data import CORPUS, MATRIX

    data_dir.mkdir(parents=True, exist_ok=True)
    settings = get_settings(data_dir=data_dir, embedding_backend=backend)
    bench.prepare(settings, CORPUS, MATRIX, DAYS)
    with bench.serve(data_dir, backend) as base:
        pid = _server_pid()
        _warm(base)
        return [_endpoint_cost(base, pid, name, path, seconds) for name, path in ENDPOINTS]


def _server_pid() -> int:
    """The uvicorn process: this process's only child while the server runs."""
    children: list[str] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        children += (task / "children").read_text().split()
    if len(children) != 1:
        raise RuntimeError(f"expected the server as the only child process, found {children}")
    return int(children[0])


def _cpu_seconds(pid: int) -> float:
    """User plus system time of ``pid``; the command name may hold spaces, so split after it."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _warm(base: str) -> None:
    for _, path in ENDPOINTS:
        for _ in range(WARM_REQUESTS):
            with urllib.request.urlopen(base + path, timeout=600) as response:
                response.read()


def _endpoint_cost(base: str, pid: int, name: str, path: str, seconds: int) -> EndpointCost:
    single = _wrk(base + path, 1, seconds)
    before = _cpu_seconds(pid)
    loaded = _wrk(base + path, RATE_CONNECTIONS, seconds)
    used = _cpu_seconds(pid) - before
    return EndpointCost(
        name=name,
        requests_per_second=loaded.requests_per_second,
        cpu_us_per_request=used / max(loaded.requests, 1) * 1e6,
        p50_ms_at_one=single.p50_ms,
        errors=single.errors or loaded.errors,
    )


def _wrk(url: str, connections: int, seconds: int) -> WrkRun:
    threads = min(2, connections)
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return _parse_wrk(output)


def _parse_wrk(output: str) -> WrkRun:
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    count = re.search(r"(\d+) requests in", output)
    p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\b", output, re.MULTILINE)
    if rate is None or count is None or p50 is None:
        raise RuntimeError(f"unexpected wrk output:\n{output}")
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p50.group(2)]
    return WrkRun(
        requests_per_second=float(rate.group(1)),
        requests=int(count.group(1)),
        p50_ms=float(p50.group(1)) * scale,
        errors="Non-2xx" in output or "Socket errors" in output,
    )


def _result_line(cost: EndpointCost) -> str:
    return (
        f"RESULT {cost.name} rps{RATE_CONNECTIONS}={cost.requests_per_second:.0f}"
        f" server_cpu_us_per_req={cost.cpu_us_per_request:.0f}"
        f" p50@1={cost.p50_ms_at_one:.2f}ms" + (" ERRORS" if cost.errors else "")
    )


if __name__ == "__main__":
    main()
