#!/bin/sh
# `make install` into a temporary DESTDIR, then use what was installed the
# way a user would: build a small C program against libvsc with
# `pkg-config --cflags --libs libvsc` (shared, and static with
# `pkg-config --static`), run it, run the installed vsc, look for a man page
# per subcommand and the bash completion; then `make uninstall` must leave
# no file behind.
# Usage: tests/system/install.sh [BUILD-DIR]   (run by `make check`)
set -u
build=${1:-build}
make=${MAKE:-make}
cc=${CC:-cc}
prefix=/usr/local
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
dest=$root$prefix
failures=0

fail() {
  echo "install: FAIL: $*"
  failures=$((failures + 1))
}

if ! $make --no-print-directory install BUILD="$build" PREFIX="$prefix" DESTDIR="$root" \
  >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  echo "install: FAIL: make install PREFIX=$prefix DESTDIR=$root"
  exit 1
fi

for f in bin/vsc lib/libvsc.a lib/libvsc.so lib/libvsc.so.0 lib/pkgconfig/libvsc.pc \
  include/vsc/vsc.h share/man/man1/vsc.1 share/man/man1/vsc-check.1 \
  share/bash-completion/completions/vsc; do
  [ -e "$dest/$f" ] || fail "$prefix/$f was not installed"
done
[ -x "$dest/bin/vsc" ] || fail "$prefix/bin/vsc is not executable"
[ -L "$dest/lib/libvsc.so" ] || fail "$prefix/lib/libvsc.so is not a symlink"
soname=$(readelf -d "$dest/lib/libvsc.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libvsc.so.0 ] || fail "libvsc.so has SONAME '$soname', expected libvsc.so.0"

# The installed vsc runs on its own and knows its version.
version=$("$dest/bin/vsc" --version) || fail "installed vsc --version failed"

# A man page for vsc and for every subcommand it lists.
commands=$("$dest/bin/vsc" --help | sed -n '/^commands:/,/^$/{s/^  \([a-z][a-z0-9-]*\) .*/\1/p}')
[ -n "$commands" ] || fail "vsc --help lists no commands"
for c in $commands; do
  page=$dest/share/man/man1/vsc-$c.1
  if [ ! -f "$page" ]; then
    fail "no man page for 'vsc $c': add docs/vsc-$c.1 (docs/vsc-check.1 is a model)"
  elif ! head -n 5 "$page" | grep -q '^\.TH '; then
    fail "$page has no .TH line"
  fi
done
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
  for page in "$dest"/share/man/man1/vsc*.1; do
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "$page: groff warnings: $warnings"
  done
fi

# A program that uses the library through its public header only.
cat >"$tmp/use_libvsc.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <vsc/vsc.h>

static int decide(const char *name, const char *text)
{
	VSC_OPTS(vsc_parse_opts, popts, .filename = name);
	VSC_OPTS(vsc_check_opts, copts, .minimize = true, .want_witness = true);
	struct vsc_trace *trace = vsc_trace_parse_buffer(text, strlen(text), &popts);
	struct vsc_result *res = NULL;
	const uint32_t *witness;
	size_t n;
	long verified = -1;

	if (!trace || vsc_check(vsc_trace_program(trace, 0), &copts, &res))
		return 1;
	n = vsc_result_witness(res, &witness);
	if (n && vsc_witness_verify(vsc_trace_program(trace, 0), witness, n, &verified, NULL, 0))
		return 1;
	printf("%s: %s, preemptions %ld, witness of %zu events verified with %ld\n", name,
	       vsc_result_verdict(res) == VSC_CONSISTENT ? "consistent" : "inconsistent",
	       vsc_result_preemptions(res), n, verified);
	vsc_result_free(res);
	vsc_trace_free(trace);
	return 0;
}

int main(void)
{
	printf("libvsc %s\n", VSC_VERSION);
	return decide("mp", "init x 0\ninit f 0\nT1 w x 1\nT1 w f 1\nT2 r f 1\nT2 r x 1\n") ||
	       decide("sb", "init x 0\ninit y 0\nT1 w x 1\nT1 r y 0\nT2 w y 1\nT2 r x 0\n") ||
	       decide("pp", "T1 w x 1\nT2 r x 1\nT2 w y 1\nT1 r y 1\nT1 w x 2\nT2 r x 2\n");
}
PROG
cat >"$tmp/expected" <<EOF2
libvsc ${version#vsc }
mp: consistent, preemptions 0, witness of 4 events verified with 0
sb: inconsistent, preemptions -1, witness of 0 events verified with -1
pp: consistent, preemptions 2, witness of 6 events verified with 2
EOF2

PKG_CONFIG_LIBDIR=$dest/lib/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
unset PKG_CONFIG_PATH
if ! pkg-config --exists libvsc; then
  fail "pkg-config does not find the installed libvsc.pc"
else
  pcversion=$(pkg-config --modversion libvsc)
  [ "vsc $pcversion" = "$version" ] || fail "libvsc.pc says $pcversion, vsc says '$version'"
  cflags=$(pkg-config --cflags libvsc)
  libs=$(pkg-config --libs libvsc)
  static_libs=$(pkg-config --static --libs-only-l libvsc | sed 's/-lvsc\b//')
  std="-std=c11 -Wall -Wextra -Werror -pedantic"
  # shellcheck disable=SC2086
  if ! $cc $std $cflags -o "$tmp/use_shared" "$tmp/use_libvsc.c" $libs 2>"$tmp/cc.log"; then
    cat "$tmp/cc.log"
    fail "cc \$(pkg-config --cflags libvsc) use_libvsc.c \$(pkg-config --libs libvsc)"
  elif ! LD_LIBRARY_PATH=$dest/lib "$tmp/use_shared" >"$tmp/out_shared"; then
    fail "the program linked with the installed libvsc.so failed"
  elif ! cmp -s "$tmp/expected" "$tmp/out_shared"; then
    diff "$tmp/expected" "$tmp/out_shared"
    fail "the program linked with the installed libvsc.so printed something else"
  elif ! readelf -d "$tmp/use_shared" | grep -q 'NEEDED.*\[libvsc\.so\.0\]'; then
    fail "the program does not need libvsc.so.0"
  fi
  # shellcheck disable=SC2086
  if ! $cc $std $cflags -o "$tmp/use_static" "$tmp/use_libvsc.c" "$dest/lib/libvsc.a" \
    $static_libs 2>"$tmp/cc.log"; then
    cat "$tmp/cc.log"
    fail "static link with libvsc.a and \$(pkg-config --static --libs-only-l libvsc)"
  elif ! "$tmp/use_static" | cmp -s "$tmp/expected" -; then
    fail "the program linked with the installed libvsc.a printed something else"
  fi
fi

if ! $make --no-print-directory uninstall BUILD="$build" PREFIX="$prefix" DESTDIR="$root" \
  >"$tmp/uninstall.log" 2>&1; then
  cat "$tmp/uninstall.log"
  fail "make uninstall"
fi
left=$(cd "$root" && find . ! -type d | sort)
# shellcheck disable=SC2086
[ -z "$left" ] || fail "make uninstall left files behind: $(printf '%s ' $left)"

if [ "$failures" -ne 0 ]; then
  echo "install: $failures failed"
  exit 1
fi
echo "install: make install/uninstall into a DESTDIR, pkg-config build (shared and static): ok"
