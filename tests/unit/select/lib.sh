# Sourced by tests/unit/select_*.sh (after tests/common/lib/common.sh):
# builds tests/unit/select/select_driver.c with core/select/ under
# AddressSanitizer, LeakSanitizer and UBSan (plain, where the compiler has
# no sanitizers), and the checks the scripts make with it.
#   expect NAME WANT DRIVER-ARGS...        the chosen names, joined by ';'
#   expect_error NAME TEXT DRIVER-ARGS...  exactly one line "error: ...TEXT..."
# SELECT_VALGRIND=1: built plain and run under valgrind instead (leaks and
# memory errors fail a check too).
SEL_DIR=$ROOT/tests/unit/select
D=$W/select_driver
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo 'int main(void){return 0;}' > "$W/san.c"
gcc $SAN "$W/san.c" -o "$W/san" 2> /dev/null && "$W/san" 2> /dev/null || SAN=""
RUN=()
if [ "${SELECT_VALGRIND:-0}" = 1 ]; then
    SAN=""
    RUN=(valgrind -q --error-exitcode=98 --leak-check=full --errors-for-leak-kinds=all)
fi
if ! gcc -std=gnu11 -g -O1 $SAN -Wall -Wextra -Werror -I"$ROOT" \
        "$SEL_DIR/select_driver.c" "$ROOT"/core/select/*.c -o "$D" 2> "$W/cc.err"; then
    notok "select: the test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
export ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
# A sanitizer's report, a leak included, makes a check fail: it changes the
# output and the exit status.
if [ ${#RUN[@]} -gt 0 ]; then ok "select: the test program builds (run under valgrind)"
elif [ -n "$SAN" ]; then ok "select: the test program builds (under ASan, LSan and UBSan)"
else ok "select: the test program builds (without sanitizers: gcc has none here)"; fi

expect() { # NAME WANT ARGS...
    local name=$1 want=$2 got rc
    shift 2
    got=$("${RUN[@]}" "$D" "$@" 2>&1); rc=$?
    got=$(printf '%s' "$got" | paste -sd';')
    if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok "select: $name"
    else notok "select: $name" "want [$want], got [$got] (exit $rc)"; fi
}

expect_error() { # NAME TEXT ARGS...
    local name=$1 text=$2 got rc
    shift 2
    got=$("${RUN[@]}" "$D" "$@" 2>&1); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$got" | wc -l)" -eq 1 ] &&
       [ "${got#error: }" != "$got" ] && [ "${got#*"$text"}" != "$got" ]; then
        ok "select: $name ($got)"
    else
        notok "select: $name" "want one line 'error: ...$text...' and exit 2, got [$got] (exit $rc)"
    fi
}
