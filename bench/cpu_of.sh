#!/usr/bin/env bash
# CPU seconds of a command and of every process it starts, also those it never waits for (the fault
# catalogs' forkserver and its runs, which `time` and getrusage(RUSAGE_CHILDREN) do not see), with the
# wall time and the load averages before and after. Linux, cgroup v1 cpuacct, as root:
#     bench/cpu_of.sh pytest tests -n auto -q -p no:cacheprovider
set -u
group=/sys/fs/cgroup/cpuacct/evse-conformance-bench
mkdir -p "$group" && echo 0 > "$group/cpuacct.usage" || { echo "needs cgroup v1 cpuacct and root" >&2; exit 2; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s.%N)
bash -c 'echo $$ > "$1/tasks"; shift; exec "$@"' _ "$group" "$@"
code=$?
python3 -c "import sys; print(f'CPU {int(open(sys.argv[1]).read()) / 1e9:.1f} s, wall {float(sys.argv[3]) - float(sys.argv[2]):.1f} s, '
            f'load average {sys.argv[4]} -> {sys.argv[5]}, exit {sys.argv[6]}')" \
    "$group/cpuacct.usage" "$started" "$(date +%s.%N)" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$code"
exit $code
