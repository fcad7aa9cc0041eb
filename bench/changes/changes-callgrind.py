#!/usr/bin/python3
"""Sorts the callgrind dumps bench/changes/changes-callgrind.sh made of menubusd
and prints, per change and protocol, the median instructions from the
start of the call's dispatch until its first message sent (the first
export signal), and until its last message sent (the reply), as one JSON
line.

  changes-callgrind.py DUMP_DIR

Each dump ends where a method call's dispatch starts or before a message
is handed to libdbus (dbus_connection_send) or written to the socket
directly (Connection.writeDirectly); the dumps after a dispatch start, up
to the next one, belong to that call. A message the direct write declines
then goes to libdbus: two dumps, of which the first marks the message.
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys


def read_dump(path):
    trigger, total, names = "", 0, set()
    with open(path, errors="replace") as dump:
        for line in dump:
            if line.startswith("desc: Trigger:"):
                trigger = line.split(":", 2)[2].strip()
            elif line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split()[1])
            elif line.startswith(("fn=", "cfn=")):
                names.add(line.split("=", 1)[1].strip())
    return trigger, total, names


def demangled(names):
    """Swift's names as swift-demangle prints them (callgrind keeps them mangled)."""
    names = sorted(names)
    tool = shutil.which("swift-demangle")
    if tool is None:
        sys.exit("changes-callgrind.py: swift-demangle (the Swift toolchain's) is missing")
    output = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True,
                            check=True).stdout.split("\n")
    return dict(zip(names, output))


def classify(text):
    # A private overload demangles as "MenuBusServer.(updateItems in _…)(caller:…".
    change = ("rename" if re.search(r"MenuBusServer\.\(?updateItems(?: in \w+\))?\(caller:", text)
              else "selection" if re.search(r"MenuBusServer\.\(?updateSelection(?: in \w+\))?\(caller:", text) else None)
    family = ("dbusmenu" if re.search(r"DBusMenuExport\.emitChanges", text)
              else "gmenu" if re.search(r"GMenuExport\.emitChanges", text) else None)
    return change, family


def main():
    directory = sys.argv[1]
    dumps = []
    for name in os.listdir(directory):
        match = re.fullmatch(r"callgrind\.out\.(\d+)", name)
        if match:
            dumps.append((int(match.group(1)), os.path.join(directory, name)))
    dumps.sort()
    calls = []  # each: list of (total, names) sent within one dispatch
    current = None
    read = [read_dump(path) for _, path in dumps]
    readable = demangled(set().union(*(names for _, _, names in read)))
    for trigger, total, names in read:
        names = "\n".join(readable.get(name, name) for name in names)
        if "dispatchMethodCall" in trigger:
            current = []
            calls.append(current)
        elif current is not None and ("dbus_connection_send" in trigger or "writeDirectly" in trigger):
            current.append((total, names))
    first, through = {}, {}
    for sends in calls:
        if not sends:
            continue
        change, family = classify(sends[0][1])
        if change is None or family is None:
            continue
        first.setdefault((change, family), []).append(sends[0][0])
        through.setdefault((change, family), []).append(sum(total for total, _ in sends))
    result = []
    for key in sorted(first):
        result.append({"change": key[0], "family": key[1], "calls": len(first[key]),
                       "first_signal_ir": int(statistics.median(first[key])),
                       "through_reply_ir": int(statistics.median(through[key]))})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
