#!/usr/bin/python3
"""Places each change of bench/changes.py in a system-wide syscall trace
(bench/changes-trace.sh) and prints, per change, protocol and side, when
each step of the change happened, in microseconds after its clock started
(medians over the rounds), as one JSON line and a table on stderr.

  changes-trace.py TRACE CHANGES_JSON

TRACE is `perf trace -a -T` output of read, write, sendmsg, recvmsg and
sendto; CHANGES_JSON the line changes.py printed with MENUBUS_BENCH_MARK
set, which names the threads of the bench, of each reference process, of
menubusd, the floor and KDE's follower (a thread is told by its id: the
trace may not know a new process's name). Each
change starts at the bench's marking write (its length, changes.py's
`mark_code`, names the change) and ends at the next one. The steps:

  sent      the app's call leaves the app (menubusd, floor: the bench's
            GDBus thread sends it); the reference is told through a pipe
  received  the service reads the call (menubusd, floor), or the reference
            reads its command from stdin
  signal    the change's first message leaves the service (menubusd's
            first write after reading the call; the floor's; the
            reference's GDBus thread's first send after the command)
  kde       KDE's importer reports its menu changed (dbusmenu, with the
            follower running; the floor has no follower)

A step not found in a change (a message read before the trace placed it,
a follower that did not report) leaves that change out of that step.
"""

import json
import re
import statistics
import sys

SIDES = ("menubusd", "reference", "reference-bus", "floor")
CHANGES = ("rename", "selection")
FAMILIES = ("gmenu", "dbusmenu")
STEPS = ("sent", "received", "signal", "kde")
# "  1234.567 ( 0.012 ms): comm/tid syscall(args) = result", or the same with
# "... [continued]: syscall()" where another thread's line came in between.
LINE = re.compile(r"^\s*(\d+\.\d+) \(\s*[\d.]* ms\): .+?/(\d+) (?:\.\.\. \[continued\]: )?(\w+)\((.*)\)\s+= (-?\d+)")


class Event:
    __slots__ = ("ms", "tid", "call", "args", "result")

    def __init__(self, ms, tid, call, args, result):
        self.ms, self.tid, self.call, self.args, self.result = ms, tid, call, args, result


def read_trace(path):
    """Completed syscalls by start time (a line that only opens one, ending
    in "...", is completed by its "[continued]" line)."""
    events = []
    with open(path, errors="replace") as trace:
        for line in trace:
            match = LINE.match(line)
            if match:
                ms, tid, call, args, result = match.groups()
                events.append(Event(float(ms), int(tid), call, args, int(result)))
    events.sort(key=lambda event: event.ms)
    return events


def decode(code):
    return CHANGES[code // 100], FAMILIES[(code // 10) % 10], SIDES[code % 10 - 1]


def first(events, start, end, test):
    for index in range(start, end):
        if test(events[index]):
            return index
    return None


def steps_of(events, start, end, side, key, threads):
    """The step times (ms) of the change whose marking write is events[start]."""
    bench_gdbus = threads["bench"].get("gdbus")
    found = {}
    if side in ("menubusd", "floor"):
        service = threads[side]
        sent = first(events, start, end, lambda e: e.tid == bench_gdbus and e.call == "sendmsg" and e.result > 0)
        if sent is None:
            return found
        found["sent"] = events[sent].ms
        read = first(events, sent, end, lambda e: e.tid == service and e.call == "recvmsg" and e.result > 0)
        if read is None:
            return found
        found["received"] = events[read].ms
        signal = first(events, read, end, lambda e: e.tid == service and e.call in ("sendto", "sendmsg"))
        if signal is not None:
            found["signal"] = events[signal].ms
    elif side == "reference":
        reference = threads["references"].get("%s/%s/%s" % key, {})
        read = first(events, start, end, lambda e: e.tid == reference.get("main") and e.call == "read" and e.result > 0)
        if read is None:
            return found
        found["received"] = events[read].ms
        signal = first(events, read, end, lambda e: e.tid == reference.get("gdbus") and e.call == "sendmsg")
        if signal is not None:
            found["signal"] = events[signal].ms
    if key[1] == "dbusmenu" and side != "floor" and threads.get("kde"):
        shown = first(events, start, end, lambda e: e.tid == threads["kde"] and e.call == "write"
                      and e.args.startswith("fd: 1,"))
        if shown is not None:
            found["kde"] = events[shown].ms
    return found


def main():
    events = read_trace(sys.argv[1])
    with open(sys.argv[2]) as result:
        run = json.loads(result.readline())
    threads, marking = run["threads"], "fd: %d," % run["mark_fd"]
    bench = threads["bench"]["main"]
    marks = [index for index, event in enumerate(events)
             if event.tid == bench and event.call == "write" and event.args.startswith(marking)]
    times = {}  # (change, family, side, step) -> [microseconds]
    for number, start in enumerate(marks):
        end = marks[number + 1] if number + 1 < len(marks) else len(events)
        change, family, side = decode(events[start].result)
        if side == "reference-bus":
            continue
        for step, ms in steps_of(events, start + 1, end, side, (change, family, side), threads).items():
            times.setdefault((change, family, side, step), []).append((ms - events[start].ms) * 1000)
    rows = []
    for change in CHANGES:
        for family in FAMILIES:
            for side in ("menubusd", "floor", "reference"):
                row = {"change": change, "family": family, "side": side}
                for step in STEPS:
                    values = times.get((change, family, side, step))
                    if values:
                        row[step + "_us"] = round(statistics.median(values))
                        row[step + "_n"] = len(values)
                rows.append(row)
    print(json.dumps({"changes": len(marks), "steps": rows}))
    print("%-10s %-9s %-10s %9s %9s %9s %9s" % (("change", "protocol", "side") + STEPS), file=sys.stderr)
    for row in rows:
        print("%-10s %-9s %-10s %9s %9s %9s %9s" % ((row["change"], row["family"], row["side"])
              + tuple(row.get(step + "_us", "-") for step in STEPS)), file=sys.stderr)


if __name__ == "__main__":
    main()
