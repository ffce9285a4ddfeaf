#!/bin/sh
# make bench entry point.
exec python3 "$(dirname "$0")/run.py" "$@"
