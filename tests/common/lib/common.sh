# Sourced by tests/common scripts that check the source tree: the root as
# ROOT (and the working folder), a scratch folder W, the ok/notok lines.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }
cd "$ROOT" || exit 1
# unit_cases NAME OUT CASE...: a unit program's output OUT has a line
# "CASE ok[ detail]" (or "CASE fail: why") per case; one ok/notok line each
unit_cases() { local name=$1 out=$2 c line; shift 2
    for c in "$@"; do
        line=$(grep "^$c " "$out")
        case $line in
        "$c ok" | "$c ok "*) ok "$name: $c${line#"$c ok"}" ;;
        *) notok "$name: $c" "${line:-no line: $(head -c 200 "$out")}" ;;
        esac
    done
}
