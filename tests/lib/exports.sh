#!/bin/sh
# libvsc.so must export exactly the functions declared (not defined inline)
# in the public headers include/vsc/*.h: no internals, no CaDiCaL, no C++
# runtime, and no public declaration left unexported. The declarations are
# listed by the compiler itself (-aux-info), so macros and line breaks in
# the headers do not matter.
set -eu
lib=${1:-build/libvsc.so}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# probe-lttng.h is a tracepoint provider for target programs (it needs the
# LTTng headers and declares no library function); the others are included.
for h in include/vsc/*.h; do
	case $h in */probe-lttng.h) continue ;; esac
	echo "#include \"$PWD/$h\""
done >"$tmp/all.c"
"$cc" -std=c11 -D_GNU_SOURCE -Iinclude -fsyntax-only -aux-info "$tmp/aux" "$tmp/all.c"
# "NC" marks a declaration (a definition is "NF"); static ones are inline
# helpers compiled into the caller. probe.h (included by lab.h too) is
# compiled into target programs, not libvsc: its one extern declaration is
# a weak helper the header defines for the target itself.
grep 'include/vsc/[^:]*:[0-9]*:NC \*/ extern ' "$tmp/aux" | grep -v 'include/vsc/probe\.h:' |
	sed 's/ *(.*//; s/.*[ *]//' | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TW]$/ || $2 ~ /^[DBRV]$/ { print $3 }' |
	sed 's/@.*//' | sort -u >"$tmp/exported"

[ -s "$tmp/declared" ] || { echo "exports: found no declarations in include/vsc/*.h" >&2; exit 1; }
if ! cmp -s "$tmp/declared" "$tmp/exported"; then
	echo "exports: $lib does not export exactly the public API" >&2
	comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/  declared, not exported (add it to userspace\/lib\/libvsc.map): /' >&2
	comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/  exported, not declared in include\/vsc: /' >&2
	exit 1
fi
echo "exports: $(wc -l <"$tmp/exported") functions, exactly the public API"
