#!/usr/bin/env bash
# Faults x variance (issue 32): every fault of the three catalogs, and every legal variant, played under each
# of three seeds of legal variance in turn. `pytest tests` plays each under one of them (picked by its name);
# this plays all three. A fault caught without variance but missed under it is a check that is merely loose.
#   bash bench/variance_faults.sh [python]        (about 3 x 80 s on two cores)
set -uo pipefail
cd "$(dirname "$0")/.."
python="${1:-python}"
status=0
for seed in 1 2 3; do
  echo "== seed $seed"
  FAULT_VARIANCE_SEEDS=$seed "$python" -m pytest tests/faults/test_fault_catalog.py tests/faults/test_faults16.py \
    tests/faults/test_faults_ocpi.py tests/faults/test_legal_variants.py -q -p no:cacheprovider -n 2 -rf 2>&1 \
    | grep -E "faults caught|^FAILED|passed|failed" || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
exit $status
