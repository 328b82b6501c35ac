#!/usr/bin/env python3
"""Prints our push and pop+ack msg/s as a ratio to RabbitMQ's, per batch, from the JSON of one `make bench` run.

usage: rabbitmq_ratio.py OURS.json RABBITMQ.json

Both files come from the same run (scripts/bench.sh writes them one after the other), so the ratio compares
two loads measured minutes apart on the same box, never a figure from another day.
"""
import json
import sys

SCENARIOS = ("push", "popack")


def rates(path):
    """{(scenario, batch): msg/s} of the push and pop+ack scenarios in one results file."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return {(s["scenario"], s["batch"]): s["messagesPerSecond"]
            for s in doc["scenarios"]
            if s.get("scenario") in SCENARIOS and s.get("messagesPerSecond")}


def ratio_lines(ours, theirs):
    lines = []
    for key in sorted(set(ours) & set(theirs), key=lambda k: (SCENARIOS.index(k[0]), k[1])):
        scenario, batch = key
        lines.append(f"vs-rabbitmq {scenario:<7} batch {batch:>3}: ours {ours[key]:10.1f} msg/s, "
                     f"RabbitMQ {theirs[key]:10.1f} msg/s, ratio {ours[key] / theirs[key]:.2f}x")
    return lines


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    lines = ratio_lines(rates(argv[1]), rates(argv[2]))
    if not lines:
        print("vs-rabbitmq: no push or pop+ack scenario in both files", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
