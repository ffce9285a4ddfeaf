#!/bin/bash
# A site's per-rank wrapper, "wrap.sh PROGRAM ARGS...": says what it was
# given, then runs it.
printf 'wrap.sh argv:'
printf ' [%s]' "$@"
printf '\n'
exec "$@"
