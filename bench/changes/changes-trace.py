#!/usr/bin/python3
"""Places each change of bench/changes/changes.py in a system-wide syscall trace
(bench/changes/changes-trace.sh) and prints, per change, protocol and side, when
each step of the change happened, in microseconds after its marking write
(medians over the rounds, with how many rounds each step was found in),
and the legs between the steps, as one JSON line and tables on stderr.

  changes-trace.py TRACE CHANGES_JSON

TRACE is `perf trace -a -T` output of read, write, sendmsg, recvmsg and
sendto; CHANGES_JSON the line changes.py printed with MENUBUS_BENCH_MARK
set, which names the marking descriptor, the change each marking length
stands for ("marks"), and the threads of the bench, of each reference
process, of menubusd, the floor and KDE's follower (a thread is told by
its id: the trace may not know a new process's name). Each change starts
at the bench's marking write (a few microseconds after the change's clock
starts) and ends at the next one. The steps:

  sent      the app's call leaves the app (menubusd, floor: the bench's
            GDBus thread sends it); the reference is told through a pipe
  received  the service reads the call (menubusd, floor), or the reference
            reads its command from stdin
  signal    the change's first message leaves the service: the first send
            (sendto or sendmsg) of menubusd or the floor after reading the
            call, or of the reference's GDBus thread after reading the
            command (GLib's exporter renames an item by removing it and
            inserting it again: this is the removal's signal)
  arrived   the bench's GDBus thread reads the first message that came
            after it (before any consumer in the bench runs)
  kde       KDE's importer first reports its menu after the mark
            (dbusmenu, with the follower running; the floor has none):
            when it prints, not the change time it reports, and for a
            selection change possibly a state on the way

A step not found in a change leaves that change out of that step's median;
the counts say how often that was. Besides the steps' medians, the legs
between them are the medians of each change's own differences: the way
(sent to received), own (received to signal) and delivery (signal to
arrived). The call and the signals are told by who sends or reads them
and when, not by their content.
"""

import json
import re
import statistics
import sys

SIDES = ("menubusd", "floor", "reference")  # timed here, in this order
STEPS = ("sent", "received", "signal", "arrived", "kde")
# perf trace's lines: "  1234.567 ( 0.012 ms): comm/tid call(args) = result".
# A call another thread's line interrupts is opened by
# "1234.567 (         ): comm/tid call(args) ..." and completed, with the
# same start time, by "1234.567 ( 0.030 ms): comm/tid  ... [continued]: call()) = result".
HEAD = re.compile(r"^\s*(\d+\.\d+) \(\s*[\d.]*(?: ms)?\s*\): .+?/(\d+) +(.*)$")
DONE = re.compile(r"^(\w+)\((.*)\)\s+= (-?\d+)")
OPENED = re.compile(r"^(\w+)\((.*)\)\s+\.\.\.$")
CONTINUED = re.compile(r"^\.\.\. \[continued\]: (\w+)\(\)\)\s+= (-?\d+)")
STDIN = re.compile(r"^(fd: 0\b|(?!fd:))")
LEGS = (("way", "sent", "received"), ("own", "received", "signal"), ("delivery", "signal", "arrived"))


class Event:
    __slots__ = ("ms", "tid", "call", "args", "result")

    def __init__(self, ms, tid, call, args, result):
        self.ms, self.tid, self.call, self.args, self.result = ms, tid, call, args, result


def read_trace(path):
    """Completed syscalls by start time, and how many events perf lost."""
    events, opened, lost = [], {}, 0
    with open(path, errors="replace") as trace:
        for line in trace:
            if "LOST" in line and "events!" in line:
                lost += int(re.search(r"LOST (\d+)", line).group(1))
                continue
            head = HEAD.match(line)
            if not head:
                continue
            ms, tid, rest = float(head.group(1)), int(head.group(2)), head.group(3)
            done = DONE.match(rest)
            if done:
                events.append(Event(ms, tid, done.group(1), done.group(2), int(done.group(3))))
                continue
            match = OPENED.match(rest)
            if match:
                opened[tid] = (ms, match.group(1), match.group(2))
                continue
            match = CONTINUED.match(rest)
            if match and tid in opened and opened[tid][1] == match.group(1):
                start, call, args = opened.pop(tid)
                events.append(Event(start, tid, call, args, int(match.group(2))))
    events.sort(key=lambda event: event.ms)
    return events, lost


def first(events, start, end, test):
    for index in range(start, end):
        if test(events[index]):
            return index
    return None


def steps_of(events, start, end, side, key, threads):
    """The step times (ms) of the change whose marking write is events[start - 1]."""
    bench_gdbus = threads["bench"].get("gdbus")
    found = {}
    signal = None
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
        signal = first(events, read, end, lambda e: e.tid == service and e.call in ("sendto", "sendmsg")
                       and e.result > 0)
    elif side == "reference":
        reference = threads["references"].get("%s/%s/%s" % key, {})
        # perf leaves out arguments that are 0 unless told to show them: a
        # read of stdin may name no fd.
        read = first(events, start, end, lambda e: e.tid == reference.get("main") and e.call == "read"
                     and e.result > 0 and STDIN.match(e.args))
        if read is None:
            return found
        found["received"] = events[read].ms
        signal = first(events, read, end, lambda e: e.tid == reference.get("gdbus") and e.call == "sendmsg"
                       and e.result > 0)
    if signal is not None:
        found["signal"] = events[signal].ms
        arrived = first(events, signal, end, lambda e: e.tid == bench_gdbus and e.call == "recvmsg" and e.result > 0)
        if arrived is not None:
            found["arrived"] = events[arrived].ms
    if key[1] == "dbusmenu" and side != "floor" and threads.get("kde"):
        shown = first(events, start, end, lambda e: e.tid == threads["kde"] and e.call == "write"
                      and re.match(r"fd: 1\b", e.args))
        if shown is not None:
            found["kde"] = events[shown].ms
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: changes-trace.py TRACE CHANGES_JSON")
    try:
        with open(sys.argv[2]) as result:
            run = json.loads(result.readline())
        threads, mark_fd, named = run["threads"], run["mark_fd"], run["marks"]
    except (OSError, ValueError, KeyError) as error:
        sys.exit("changes-trace.py: %s is not a line of bench/changes/changes.py run with MENUBUS_BENCH_MARK set (%s)"
                 % (sys.argv[2], error))
    events, lost = read_trace(sys.argv[1])
    marking = re.compile(r"fd: %d\b" % mark_fd)
    bench = threads["bench"]["main"]
    marks = [index for index, event in enumerate(events)
             if event.tid == bench and event.call == "write" and marking.match(event.args)]
    if not marks:
        sys.exit("changes-trace.py: no marked change in %s" % sys.argv[1])
    times = {}  # (change, family, side, step) -> [microseconds]
    counted = {}  # (change, family, side) -> changes
    for number, start in enumerate(marks):
        end = marks[number + 1] if number + 1 < len(marks) else len(events)
        change, family, side = named[str(events[start].result)]
        if side not in SIDES:
            continue
        counted[(change, family, side)] = counted.get((change, family, side), 0) + 1
        found = steps_of(events, start + 1, end, side, (change, family, side), threads)
        for step, ms in found.items():
            times.setdefault((change, family, side, step), []).append((ms - events[start].ms) * 1000)
        for leg, begin, finish in LEGS:
            if begin in found and finish in found:
                times.setdefault((change, family, side, leg), []).append((found[finish] - found[begin]) * 1000)
    rows = []
    # In the marks' order, change and family first, the sides as SIDES has them.
    kinds = sorted({(change, family) for change, family, _ in named.values()},
                   key=lambda kind: min(int(code) for code, key in named.items() if tuple(key[:2]) == kind))
    for change, family in kinds:
        for side in SIDES:
            row = {"change": change, "family": family, "side": side,
                   "changes": counted.get((change, family, side), 0)}
            for step in STEPS + tuple(leg for leg, _, _ in LEGS):
                values = times.get((change, family, side, step))
                if values:
                    row[step + "_us"] = round(statistics.median(values))
                    row[step + "_n"] = len(values)
            rows.append(row)
    print(json.dumps({"changes": len(marks), "lost_events": lost, "steps": rows}))
    if lost:
        print("changes-trace.py: perf lost %d events; steps may be missing" % lost, file=sys.stderr)
    print_table("µs after the marking write (medians; in how many of the changes each step was found)", rows, STEPS,
                lambda row, step: "%d (%d/%d)" % (row[step + "_us"], row[step + "_n"], row["changes"]))
    print_table("legs, µs: medians of each change's own differences", rows, [leg for leg, _, _ in LEGS],
                lambda row, leg: "%d (%d)" % (row[leg + "_us"], row[leg + "_n"]))


def print_table(title, rows, columns, cell):
    """A table on stderr: a row per change, protocol and side; "-" where a column has no value."""
    print(title, file=sys.stderr)
    print("%-10s %-9s %-10s" % ("change", "protocol", "side") + "".join("%14s" % column for column in columns),
          file=sys.stderr)
    for row in rows:
        cells = [cell(row, column) if column + "_us" in row else "-" for column in columns]
        print("%-10s %-9s %-10s" % (row["change"], row["family"], row["side"]) + "".join("%14s" % c for c in cells),
              file=sys.stderr)


if __name__ == "__main__":
    main()
