#!/usr/bin/env python3
# lost_update.py FILE: inject a lost update into a generated trace (vsc gen
# sc --rmw ...): a second RMW of a value that an RMW in the middle of the
# trace already read, appended to another thread. Two RMWs then read one
# write, which no cycle of forced orders of the whole trace shows.
import sys

lines = open(sys.argv[1]).read().split("\n")
events = [i for i, line in enumerate(lines) if line[:1] == "T"]
rmw = next(lines[i].split() for i in events[len(events) // 2:] if lines[i].split()[1] == "u")
other = "T0" if rmw[0] != "T0" else "T1"
last = max(i for i in events if lines[i].split()[0] == other)
lines.insert(last + 1, "%s u %s %s 555555" % (other, rmw[2], rmw[3]))
open(sys.argv[1], "w").write("\n".join(lines))
