#!/bin/sh
# The whole suite with every core kept busy by a loop of another job (issue 47: no
# test may fail because the machine is slow). Usage: sh bench/suite_under_load.sh
# from the checkout, after `make test` has built .venv once.
set -u
n=$(nproc 2>/dev/null || echo 2)
pids=""
for _ in $(seq "$n"); do
    python3 -c "while True: pass" &
    pids="$pids $!"
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM
.venv/bin/python -m pytest -q -n "$n" -p no:cacheprovider --durations=20
