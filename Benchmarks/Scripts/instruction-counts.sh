#!/usr/bin/env bash
# Instructions per conversion of EntityMapper and of the Codable floor, counted by valgrind's
# callgrind: the same on every run whatever else the machine does, so a regression of a percent
# shows where timings would drown it in noise.
#
#     Benchmarks/Scripts/instruction-counts.sh            # count, compare with the baseline
#     Benchmarks/Scripts/instruction-counts.sh --update   # count, and write the counts as the new baseline
#
# Each workload runs under callgrind twice, n and 2n times after one warm-up pass; the difference of
# the two totals over n is what one conversion costs, start-up excluded. Exit status 1 when a
# mapper workload costs more than the baseline by over the tolerance (INSTRUCTION_TOLERANCE_PERCENT,
# default 2), 2 when the counts could not be made.
set -euo pipefail
cd "$(dirname "$0")/.."

baseline="instruction-baseline.txt"
tolerance="${INSTRUCTION_TOLERANCE_PERCENT:-2}"
update=0
case "${1:-}" in
    --update) update=1 ;;
    "") ;;
    *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }

swift build -c release --product instructions >&2
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Without its debug information: this valgrind cannot read the DWARF 5 the toolchain writes, and
# counting needs none of it.
binary="$scratch/instructions"
cp "$(swift build -c release --show-bin-path)/instructions" "$binary"
strip --strip-debug "$binary"

# Total instructions of one run: callgrind's "Collected" line.
count() {
    valgrind --tool=callgrind --callgrind-out-file="$scratch/out" "$binary" "$@" 2>&1 >/dev/null \
        | awk '/Collected/ { print $4 }'
}

per_operation() {
    local operation="$1" strategy="$2" n="$3"
    local once twice
    once="$(count "$operation" "$strategy" "$n")"
    twice="$(count "$operation" "$strategy" $((2 * n)))"
    [[ -n "$once" && -n "$twice" ]] || { echo "callgrind failed on $operation $strategy" >&2; exit 2; }
    echo $(((twice - once) / n))
}

status=0
results="$scratch/results"
: >"$results"
for model in Message Dialog; do
    n=$([[ $model == Message ]] && echo 2000 || echo 100)
    for direction in p2e e2p roundtrip; do
        operation="$model.$direction"
        mapper="$(per_operation "$operation" mapper "$n")"
        floor="$(per_operation "$operation" floor "$n")"
        echo "$operation mapper $mapper" >>"$results"
        echo "$operation floor $floor" >>"$results"
        ratio="$(awk -v m="$mapper" -v f="$floor" 'BEGIN { printf "%.2f", m / f }')"
        line="INSTRUCTIONS $operation mapper=$mapper floor=$floor mapper/floor=$ratio"
        if [[ -f $baseline ]]; then
            expected="$(awk -v op="$operation" '$1 == op && $2 == "mapper" { print $3 }' "$baseline")"
            if [[ -n $expected ]]; then
                change="$(awk -v now="$mapper" -v was="$expected" 'BEGIN { printf "%+.1f", (now - was) * 100 / was }')"
                line="$line baseline=$expected change=$change%"
                if awk -v c="$change" -v t="$tolerance" 'BEGIN { exit !(c > t) }'; then
                    line="$line REGRESSION"
                    status=1
                fi
            fi
        fi
        echo "$line"
    done
done

if ((update)); then
    {
        echo "# Instructions per conversion (callgrind), written by Scripts/instruction-counts.sh --update."
        echo "# <Model>.<direction> <strategy> <instructions>"
        cat "$results"
    } >"$baseline"
    echo "baseline written to Benchmarks/$baseline"
    exit 0
fi
exit "$status"
