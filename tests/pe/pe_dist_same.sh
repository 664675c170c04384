#!/usr/bin/env bash
# pe_dist_same.sh SYMRUN PROG NP_A NP_B ARGS...: runs PROG with NP_A and with
# NP_B PEs; passes when both exit 0 and print the same "checksum=" value.
symrun=$1 prog=$2 na=$3 nb=$4
shift 4
outa=$("$symrun" -n "$na" "$prog" "$@") || { echo "$outa"; echo "failed with $na PEs" >&2; exit 1; }
outb=$("$symrun" -n "$nb" "$prog" "$@") || { echo "$outb"; echo "failed with $nb PEs" >&2; exit 1; }
echo "$outa"; echo "$outb"
ca=$(grep -o 'checksum=[^;]*' <<<"$outa") cb=$(grep -o 'checksum=[^;]*' <<<"$outb")
if [ -z "$ca" ] || [ "$ca" != "$cb" ]; then
  echo "pe_dist_same: $na PEs gave '$ca', $nb PEs gave '$cb'" >&2; exit 1
fi
echo "pe_dist_same: $na and $nb PEs agree: $ca"
