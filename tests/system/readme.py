#!/usr/bin/env python3
"""Keep README.md honest: run every shell example in it and compare.

A fenced block whose first line starts with `$ ` is a shell session: each
`$ COMMAND` line is run (in order, in one shell, in a temporary folder with
`build` and `docs` linked to the real ones) and its output (stdout and
stderr) must equal the lines that follow it in the README, up to the next
`$ ` line. `"time_s":N` and `"solver":"NAME"` are compared as `"time_s":T` and `"solver":S`. A block whose first line
is `# NAME.vsc` is written to NAME.vsc first, so the examples can use it.

Usage: tests/system/readme.py BUILD-DIR [README]
"""
import os
import re
import subprocess
import sys
import tempfile

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
readme = sys.argv[2] if len(sys.argv) > 2 else os.path.join(top, "README.md")
text = open(readme, encoding="utf-8").read()
blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)
MARK = "@@@vsc-readme-mark@@@"


def normalize(s):
    s = re.sub(r'"time_s":[0-9.eE+-]+', '"time_s":T', s)
    # which solver `auto` picks is not part of the contract (as in tests/cli)
    s = re.sub(r'"solver":"[^"]*"', '"solver":S', s)
    return "\n".join(line.rstrip() for line in s.strip("\n").splitlines())


failures = 0
checked = 0
with tempfile.TemporaryDirectory() as tmp:
    os.symlink(build, os.path.join(tmp, "build"))
    os.symlink(os.path.join(top, "docs"), os.path.join(tmp, "docs"))
    for block in blocks:
        first = block.splitlines()[0] if block.strip() else ""
        m = re.match(r"# ([A-Za-z0-9_.-]+\.vsc)$", first)
        if m:
            with open(os.path.join(tmp, m.group(1)), "w") as f:
                f.write(block)
    for block in blocks:
        lines = block.splitlines()
        if not lines or not lines[0].startswith("$ "):
            continue
        session = []  # (command, expected lines)
        for line in lines:
            if line.startswith("$ "):
                session.append((line[2:], []))
            else:
                session[-1][1].append(line)
        script = ""
        for cmd, _ in session:
            script += f"{cmd} 2>&1\n__s=$?\nprintf '\\n{MARK}\\n'\n(exit $__s)\n"
        run = subprocess.run(["sh", "-c", script], cwd=tmp, capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=600)
        outputs = run.stdout.split(MARK + "\n")
        for i, (cmd, expected) in enumerate(session):
            checked += 1
            got = normalize(outputs[i]) if i < len(outputs) else "<no output>"
            want = normalize("\n".join(expected))
            if got != want:
                failures += 1
                print(f"readme: FAIL: `{cmd}`")
                print("  README says:\n    " + want.replace("\n", "\n    "))
                print("  it printed:\n    " + got.replace("\n", "\n    "))
if checked == 0:
    print("readme: FAIL: no shell examples found in " + readme)
    sys.exit(1)
print(f"readme: {checked} commands of README.md run, {failures} differ")
if failures:
    print("readme: if the new output is right, paste it into README.md (it shows real runs)")
sys.exit(1 if failures else 0)
