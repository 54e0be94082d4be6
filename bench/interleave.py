#!/usr/bin/env python3
"""Whole-process timing of several commands in interleaved rounds.

hyperfine times one command's runs, then the next's: on a shared or virtual machine the
background drifts between those blocks by more than the differences measured here. This
runner starts each command once per round, so every command meets the same machine; the order
is shuffled each round (a fixed seed), because in a fixed order each command always follows the
same one and pays for what that one left behind (a Python start leaves the caches cold for the
next). What it reports are differences and ratios between commands of one run.

Usage: interleave.py --rounds N --warmup W --json OUT NAME=COMMAND...   (COMMAND is split on
blanks; run from the directory the commands should run in). OUT gets, for each NAME, the
median, first quartile and minimum in ms. A command that fails stops the run.
"""
import argparse
import json
import os
import random
import statistics
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--json", required=True)
    ap.add_argument("commands", nargs="+", help="NAME=COMMAND")
    args = ap.parse_args()
    named = [c.split("=", 1) for c in args.commands]
    argvs = [(name, cmd.split()) for name, cmd in named]
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = {name: [] for name, _ in argvs}
    rng = random.Random(1)
    for r in range(args.warmup + args.rounds):
        order = list(argvs)
        rng.shuffle(order)
        for name, argv in order:
            start = time.perf_counter_ns()
            pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
            _, status = os.waitpid(pid, 0)
            took = (time.perf_counter_ns() - start) / 1e6
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"interleave.py: {' '.join(argv)} failed (status {status})")
            if r >= args.warmup:
                times[name].append(took)
    out = {}
    for name, t in times.items():
        t.sort()
        out[name] = {"median": statistics.median(t), "p25": t[len(t) // 4], "min": t[0]}
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
