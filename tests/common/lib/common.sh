# Sourced by tests/common scripts that check the source tree: the root as
# ROOT (and the working folder), a scratch folder W, the ok/notok lines.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }
cd "$ROOT" || exit 1
