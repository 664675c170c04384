#!/usr/bin/env bash
# symcc_projects.sh MODE SYMCC SYMRUN WORKDIR - other people's build systems
# drive symcc (issue 17): a small project generated here is built with symcc
# as its C compiler, then its 2-PE program runs under symrun.
#
#   autotools  autoreconf, ./configure CC=symcc && make (configure and make put
#              CC=symcc in the environment of every compiler call: symcc must
#              not wrap itself)
#   cmake      cmake -DCMAKE_C_COMPILER=symcc, with CC=symcc exported too
#   self       CC=symcc symcc ...: ignored (a note under --showme), SYMCC_CC wins
#
# symcc is reached as "symcc" through PATH, as a user would name it.  Exit 0
# pass, 1 fail, 77 skip (autoreconf missing: Debian's autoconf and automake,
# installed by scripts/setup.sh).
set -u
MODE=$1 SYMCC=$2 SYMRUN=$3 WORK=$4
mkdir -p "$WORK"
T=$(mktemp -d "$WORK/symcc-$MODE.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin" "$T/src"
ln -s "$SYMCC" "$T/bin/symcc"
export PATH="$T/bin:$PATH"
unset SYMCC_CC SYMCC_WRAPPED
fail() { echo "FAIL [$MODE]: $*" >&2; exit 1; }

cat >"$T/src/hello.c" <<'C'
#include <shmem.h>
#include <stdio.h>
int main(void)
{
    static long got = -1;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&got, me, (me + 1) % n);
    shmem_barrier_all();
    int ok = got == (me + n - 1) % n;
    if (me == 0 && ok) printf("hello: ok with %d PEs\n", n);
    shmem_finalize();
    return ok ? 0 : 1;
}
C

run_prog() { # PROGRAM: 2 PEs, one "ok" line
    local out
    out=$(timeout 60 "$SYMRUN" -n 2 "$1" 2>&1) || fail "symrun -n 2 $1 failed: $out"
    [ "$out" = "hello: ok with 2 PEs" ] || fail "unexpected output: $out"
}

case $MODE in
autotools)
    command -v autoreconf >/dev/null && command -v automake >/dev/null ||
        { echo "skip: autoreconf/automake missing (apt-get install autoconf automake)"; exit 77; }
    cd "$T/src" || exit 1
    cat >configure.ac <<'AC'
AC_INIT([symcc-hello], [1.0])
AM_INIT_AUTOMAKE([foreign no-dist])
AC_PROG_CC
AC_CHECK_HEADER([shmem.h], [], [AC_MSG_ERROR([symcc did not add shmem.h's directory])])
AC_CHECK_FUNC([shmem_init], [], [AC_MSG_ERROR([symcc did not link libsymheap])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
    printf 'bin_PROGRAMS = hello\nhello_SOURCES = hello.c\n' >Makefile.am
    timeout 120 autoreconf -fi >"$T/autoreconf.log" 2>&1 || { cat "$T/autoreconf.log"; fail "autoreconf failed"; }
    # Before issue 17 this hung in configure's first compiler test.
    timeout 120 ./configure CC=symcc >"$T/configure.log" 2>&1 ||
        { tail -30 config.log; fail "./configure CC=symcc failed or hung (exit $?)"; }
    grep -q '^CC = symcc$' Makefile || fail "configure did not keep CC=symcc"
    timeout 120 make >"$T/make.log" 2>&1 || { cat "$T/make.log"; fail "make failed"; }
    run_prog ./hello
    ;;
cmake)
    cat >"$T/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(symcc_hello C)
add_executable(hello hello.c)
CM
    export CC=symcc
    timeout 120 cmake -S "$T/src" -B "$T/build" -DCMAKE_C_COMPILER=symcc >"$T/cmake.log" 2>&1 ||
        { cat "$T/cmake.log"; fail "cmake -DCMAKE_C_COMPILER=symcc failed or hung"; }
    timeout 120 cmake --build "$T/build" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "build failed"; }
    run_prog "$T/build/hello"
    ;;
self)
    # CC naming symcc is ignored, and --showme says so; SYMCC_CC wins.
    out=$(CC=symcc timeout 10 symcc --showme -o x x.c 2>&1) || fail "symcc --showme failed: $out"
    grep -q "^symcc: note: CC='symcc' is symcc itself" <<<"$out" || fail "no note under --showme: $out"
    grep -q '^cc -I' <<<"$out" || fail "CC=symcc did not fall back to cc: $out"
    out=$(CC=symcc SYMCC_CC="gcc -m64" timeout 10 symcc --showme x.c 2>&1)
    [[ $out == "gcc -m64 -I"* ]] || fail "SYMCC_CC not used: $out"
    CC=symcc timeout 30 symcc -o "$T/hello" "$T/src/hello.c" || fail "CC=symcc symcc failed or hung"
    run_prog "$T/hello"
    ;;
*) fail "unknown mode $MODE" ;;
esac
echo "symcc_projects $MODE: ok"
