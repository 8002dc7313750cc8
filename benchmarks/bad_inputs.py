"""Time how long each bad environment file of issue 23 takes to be refused, and print a table.

Usage: .venv/bin/python benchmarks/bad_inputs.py [--runs 5]
Each case is an environment file loaded with ``load_config_file`` in this process (the CDK app refuses the same
file before it builds anything). The goal is under 2 s each; before the fix an alias bomb of 8 levels took 13 s and
690 MB, of 9 levels 133 s and 5.6 GB (now it is refused at its first anchor, before anything is built).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from eks_training.infra.config import ConfigError, ENVIRONMENTS_DIR, load_config_file

GOAL_S = 2.0
STAGING = (ENVIRONMENTS_DIR / "staging.yaml").read_text()


def _bomb(levels: int) -> str:
    lines = ['lol0: &lol0 ["lol"]']
    lines += [f"lol{i}: &lol{i} [{', '.join([f'*lol{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return STAGING + "\n".join(lines) + "\n"


def _set(path: str, value) -> str:
    data = yaml.safe_load(STAGING)
    node = data
    keys = path.split(".")
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value
    return yaml.safe_dump(data)


CASES = {
    "alias bomb, 9 levels": _bomb(9),
    "alias bomb, 40 levels": _bomb(40),
    "duplicate key": STAGING.replace("name: staging\n", "name: staging\nname: prod\n"),
    "no as a boolean": STAGING.replace("  jupyterhub: true", "  jupyterhub: yes"),
    "public endpoint with CIDRs": _set("cluster", {"endpoint_access": "public", "public_access_cidrs": ["198.51.100.0/24"]}),
    "max_size 100000": _set("system_nodes", {"max_size": 100000}),
    "99999999 accelerators": _set("capacity", {"karpenter_pools": [
        {"name": "huge", "instance_types": ["g6.12xlarge"], "max_accelerators": 99999999}]}),
    "reserved namespace": _set("training_namespaces", [{"name": "volcano-system"}]),
    "name not the file's": STAGING.replace("name: staging", "name: prod"),
}


def refused(path: Path) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        load_config_file(path)
    except ConfigError as error:
        return time.perf_counter() - start, str(error)
    raise SystemExit(f"{path.name} loaded: the case is not a bad input")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for name, text in CASES.items():
            paths[name] = Path(folder) / str(len(paths)) / "staging.yaml"  # the file name staging.yaml holds
            paths[name].parent.mkdir()
            paths[name].write_text(text)
        times: dict[str, list[float]] = {name: [] for name in CASES}
        lines = {}
        for _ in range(runs):
            for name, path in paths.items():
                elapsed, lines[name] = refused(path)
                times[name].append(elapsed)
    print(f"{'bad input':<28}{'median ms':>10}{'max ms':>8}  goal < {GOAL_S:.0f} s   the one line")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<28}{median * 1000:>10.1f}{max(values) * 1000:>8.1f}  {'ok' if max(values) < GOAL_S else 'SLOW':<11} "
              f"{lines[name][:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
