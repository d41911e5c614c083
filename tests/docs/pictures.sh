#!/bin/sh
# The pictures of docs/explain.md, made from the tool's own output:
#   explain-core.png  `vsc check --svg` of docs/examples/stale_read.vsc,
#                     rendered by rsvg-convert;
#   explain-html.png  `vsc check --html` of the same trace, a screenshot by
#                     headless Chromium.
# tests/docs/pictures.sh BUILD/vsc OUTDIR (make docs-pictures: OUTDIR docs/).
# The same commands render them in make check (check-reports looks at the
# pages and pictures); this script is what made the committed PNGs.
set -eu
vsc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=examples/stale_read.vsc # relative: the pictures show the name

cd "$top/docs"
status=0
"$vsc" check --svg "$tmp/core.svg" --html "$tmp/page.html" "$trace" > /dev/null || status=$?
[ $status -eq 1 ] || { echo "pictures: $trace is not inconsistent (status $status)" >&2; exit 1; }
rsvg-convert --zoom 2 --background-color white -o "$out/explain-core.png" "$tmp/core.svg"
chromium=$(command -v chromium || command -v chromium-browser)
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --screenshot="$out/explain-html.png" --window-size=1200,640 \
  "file://$tmp/page.html" > /dev/null 2>&1
[ -s "$out/explain-core.png" ] && [ -s "$out/explain-html.png" ]
echo "pictures: $out/explain-core.png $out/explain-html.png"
