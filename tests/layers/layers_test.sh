#!/usr/bin/env bash
# layers_test.sh - the library's layers point down only (issue 13).
#
#   layers_test.sh SRC [LAYER=OBJ:OBJ:... ...]
#   layers_test.sh --selftest SRC    plants a climbing include and a folder
#                                    circle in a copy of SRC: both must be caught
#
# Layers, bottom first (cmake/Layers.cmake, docs/design.md):
#   util bootstrap heap transport core debug api ext
# Fails, naming the file, line and both layers, when
#  1. a source under SRC/<layer>/ includes "<other>/..." of a layer above it;
#  2. folders include each other, directly or around a circle (ext/dist
#     and ext/foo are folders of one layer: they may not form a circle);
#  3. an object of a layer needs a symbol that only a layer above defines
#     (a call or variable reaching up, which no include path can stop).
set -u
if [ "${1:-}" = --selftest ]; then
    d=$(mktemp -d)
    trap 'rm -rf "$d"' EXIT
    cp -r "$2" "$d/src"
    printf '#include "api/ctx.h"\n' >> "$d/src/core/team.h"
    mkdir "$d/src/ext/other"
    printf '#include "ext/dist/dist_impl.h"\n' > "$d/src/ext/other/a.h"
    printf '#include "ext/other/a.h"\n' >> "$d/src/ext/dist/dist_impl.h"
    out=$("$0" "$d/src" 2>&1)
    echo "$out"
    echo "$out" | grep -q 'src/core/team.h:[0-9]* includes "api/ctx.h": core (layer 4) may not include api' &&
        echo "$out" | grep -q 'folders include each other.*ext/dist <-> ext/other' ||
        { echo "layers_test --selftest: the planted include or circle was not reported" >&2; exit 1; }
    exit 0
fi
src=$1
shift
layers=(util bootstrap heap transport core debug api ext)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done
fail=0
bad() { echo "layers_test: $*" >&2; fail=1; }

# 1 and 2: includes, from the sources.
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
while IFS= read -r f; do
    rel=${f#"$src"/}
    layer=${rel%%/*}
    folder=$(dirname "$rel")
    [ -n "${rank[$layer]:-}" ] || { bad "$rel: folder src/$layer is not a layer (add it to cmake/Layers.cmake and here)"; continue; }
    while IFS=: read -r line inc; do
        to=${inc%%/*}
        if [ -z "${rank[$to]:-}" ]; then
            bad "src/$rel:$line includes \"$inc\": \"$to\" is not a layer"
        elif (( rank[$to] > rank[$layer] )); then
            bad "src/$rel:$line includes \"$inc\": $layer (layer ${rank[$layer]}) may not include $to (layer ${rank[$to]}, above it); move what it needs down or reach it through a hook (core/hooks.h)"
        fi
        tofolder=$(dirname "$inc")
        [ "$tofolder" != "$folder" ] && echo "$folder $tofolder"
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' "$f" |
             sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done < <(find "$src" -name '*.[ch]' | sort) | sort -u > "$edges"
# Circles: transitive closure over the folder graph (a few dozen folders).
cycles=$(awk '
    { e[$1, $2] = 1; n[$1] = 1; n[$2] = 1 }
    END {
        for (k in n) for (i in n) if ((i, k) in e) for (j in n) if ((k, j) in e) e[i, j] = 1
        for (i in n) for (j in n) if (i < j && (i, j) in e && (j, i) in e) printf "%s%s <-> %s", (c++ ? ", " : ""), i, j
    }' "$edges")
[ -z "$cycles" ] || bad "folders include each other (directly or around a circle): $cycles"

# 3: symbols, from the objects: LAYER=OBJ:OBJ:...  Only symbols that code
# refers to (relocations) count: the profiling interface's ".set X, pX"
# pairs name every pX in every object without using it.
declare -A defined_in
declare -A objs_of
for arg in "$@"; do
    layer=${arg%%=*}
    objs_of[$layer]=${arg#*=}
    IFS=: read -r -a objs <<< "${objs_of[$layer]}"
    while read -r sym; do
        defined_in[$sym]=${defined_in[$sym]:-$layer}
    done < <(nm --defined-only -g "${objs[@]}" | awk 'NF == 3 && $2 != "U" && $2 != "w" && $2 != "W" && $2 != "V" { print $3 }')
done
for layer in "${!objs_of[@]}"; do
    IFS=: read -r -a objs <<< "${objs_of[$layer]}"
    for o in "${objs[@]}"; do
        while read -r sym; do
            to=${defined_in[$sym]:-}
            [ -n "$to" ] && (( rank[$to] > rank[$layer] )) &&
                bad "$(basename "$o" .o) ($layer) uses $sym, defined in $to (above it)"
        done < <(nm -u "$o" | awk '{ print $2 }' | sort -u |
                 comm -12 - <(readelf -rW "$o" | awk 'NF >= 5 && $1 ~ /^[0-9a-f]+$/ { print $5 }' | sort -u))
    done
done

[ "$fail" = 0 ] && echo "layers_test: $(find "$src" -name '*.[ch]' | wc -l) sources in ${#layers[@]} layers, $# object sets: includes and symbols point down, no folder circle"
exit "$fail"
