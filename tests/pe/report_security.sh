#!/usr/bin/env bash
# report_security.sh SYMRUN PROG - heap reports in a shared directory (issue 17).
#
# As root, with a second user made here (useradd) and removed at the end:
#  1. that user plants, in a sticky world-writable directory like /tmp, a
#     symbolic link where PE 0's report goes (pointing at a file of ours) and
#     an empty mode-0666 file of its own where PE 1's goes: neither the link's
#     target nor the planted file may be written, and each PE says why;
#  2. a report where nothing was planted is a new file, mode 0600;
#  3. SIGUSR1 without SHMEM_HEAP_REPORT writes into a 0700 directory of the
#     user's own (${TMPDIR}/symheap-<uid>), not the working directory; when
#     the other user made that directory first, nothing is written there.
# PROG is pe_hardening (modes fork: any job that finalizes; usr1).  Exit 0
# pass, 1 fail, 77 skip (not root, or no useradd).
set -u
SYMRUN=$1 PROG=$2
[ "$(id -u)" = 0 ] || { echo "skip: needs root (to create a second user)"; exit 77; }
command -v useradd >/dev/null && command -v setpriv >/dev/null ||
    { echo "skip: useradd or setpriv missing"; exit 77; }
U=shrep$$
useradd -M -N -r -s /usr/sbin/nologin "$U" || { echo "useradd $U failed"; exit 1; }
T=$(mktemp -d)
chmod 755 "$T" # the other user reaches $T/shared
cleanup() { rm -rf "$T"; userdel "$U" 2>/dev/null; }
trap cleanup EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
as_user() { setpriv --reuid="$U" --regid="$(id -g "$U")" --clear-groups -- "$@"; }

S=$T/shared # like /tmp
mkdir -m 1777 "$S"
echo precious >"$T/victim"
as_user ln -s "$T/victim" "$S/rep.0.txt" || fail "the other user cannot plant a link"
as_user sh -c "umask 0; : >'$S/rep.1.txt'" || fail "the other user cannot plant a file"

# 1. planted link and file
(cd "$T" && SHMEM_HEAP_REPORT="$S/rep" "$SYMRUN" -n 2 "$PROG" fork >"$T/out" 2>"$T/err") ||
    fail "the job failed: $(cat "$T/err")"
cat "$T/err"
[ "$(cat "$T/victim")" = precious ] || fail "the link's target was written: $(head -c 200 "$T/victim")"
[ -L "$S/rep.0.txt" ] || fail "the planted link was replaced"
[ ! -s "$S/rep.1.txt" ] || fail "the report went into the other user's file"
[ "$(stat -c %U "$S/rep.1.txt")" = "$U" ] || fail "the other user's file was replaced"
grep -q "^\[pe 0\] symheap warning: heap report: cannot write $S/rep.0.txt: it is a symbolic link, which a report never follows: remove it or choose another prefix (SHMEM_HEAP_REPORT)$" "$T/err" ||
    fail "no clear message for the link"
grep -q "^\[pe 1\] symheap warning: heap report: cannot write $S/rep.1.txt: it belongs to user '$U' (uid [0-9]*), not to this user (uid 0): not replacing another user's file" "$T/err" ||
    fail "no clear message for the planted file"
leftovers() { ls "$S" | grep -E '\.(txt|html)\.[A-Za-z0-9]{6}$'; }
[ -z "$(leftovers)" ] || fail "temporary files left: $(leftovers)"

# 2. nothing planted: new files, ours, 0600
(cd "$T" && SHMEM_HEAP_REPORT="$S/ok" "$SYMRUN" -n 2 "$PROG" fork >"$T/out" 2>"$T/err") ||
    fail "the job failed: $(cat "$T/err")"
for f in "$S/ok.0.txt" "$S/ok.1.html"; do
    [ "$(stat -c '%a %U' "$f" 2>&1)" = "600 root" ] || fail "$f: $(stat -c '%a %U' "$f" 2>&1), want 600 root"
done
[ -z "$(leftovers)" ] || fail "temporary files left: $(leftovers)"

# 3. SIGUSR1's default name: a private directory, not the working directory
mkdir "$T/cwd" "$T/tmpdir"
(cd "$T/cwd" && env -u XDG_RUNTIME_DIR -u SHMEM_HEAP_REPORT TMPDIR="$T/tmpdir" \
    "$SYMRUN" -n 2 "$PROG" usr1 >"$T/out" 2>"$T/err") || fail "usr1 failed: $(cat "$T/err")"
D=$T/tmpdir/symheap-0
[ "$(stat -c '%a %U' "$D" 2>&1)" = "700 root" ] || fail "$D: $(stat -c '%a %U' "$D" 2>&1), want 700 root"
[ "$(stat -c %a "$D/symheap-heap.sig1.1.txt" 2>&1)" = 600 ] || fail "no private $D/symheap-heap.sig1.1.txt: $(ls -la "$D" 2>&1)"
[ -z "$(ls -A "$T/cwd")" ] || fail "SIGUSR1 wrote into the working directory: $(ls "$T/cwd")"
grep -q "heap report (SIGUSR1): $D/symheap-heap.sig1.0.html and .txt" "$T/err" || fail "no line naming the report: $(cat "$T/err")"
# ... and a directory of that name made first by the other user is not used
as_user mkdir -m 777 "$S/symheap-0"
(cd "$T/cwd" && env -u XDG_RUNTIME_DIR -u SHMEM_HEAP_REPORT TMPDIR="$S" \
    "$SYMRUN" -n 2 "$PROG" usr1 >"$T/out" 2>"$T/err") || fail "usr1 failed: $(cat "$T/err")"
[ -z "$(ls -A "$S/symheap-0")" ] || fail "a report went into the other user's directory"
grep -q "heap report (SIGUSR1): $S/symheap-0 is not a directory of this user's that only it can use" "$T/err" ||
    fail "no clear message for the other user's directory: $(cat "$T/err")"

[ "$FAILS" = 0 ] || { echo "report_security: $FAILS failure(s)"; exit 1; }
echo "report_security: ok"
