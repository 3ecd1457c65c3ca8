#!/usr/bin/env bash
# The public API of every library product, compared with the baseline committed in api-baseline/,
# so that a break is a decision and not an accident.
#
#   Scripts/api-baseline.sh check    # fail when the API breaks the baseline (what .ci/run does)
#   Scripts/api-baseline.sh update   # write the current API as the new baseline
#
# Both read the modules of a debug build (`swift build` first). The toolchain's swift-api-digester
# dumps each module's public declarations (`package` ones are dropped); `check` diagnoses the dump
# against the baseline and fails on any removed, renamed, moved or retyped declaration, changed
# conformance or requirement.
# Additions are not breaks: they pass, and `update` records them. A deliberate break updates the
# baseline in the same commit and says so in CHANGELOG.md.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(DAOKit DAOKitSQL DAOKitSQLite DAOKitFileStore DAOKitTesting)
mode="${1:-check}"
build_dir="$(swift build --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

dump() {  # module output-file
    # The C support module is found through the module map SwiftPM wrote for it; CSQLite's comes
    # from its own folder.
    swift-api-digester -dump-sdk -module "$1" -o "$2" -avoid-location -avoid-tool-args \
        -I "$build_dir/Modules" \
        -Xcc "-fmodule-map-file=$build_dir/CDAOKitSupport.build/module.modulemap" \
        -I Sources/CSQLite
    [[ -s "$2" ]] || { echo "error: swift-api-digester wrote no API for $1 (is it built?)" >&2; exit 1; }
    # The dump also lists what the digester marks internal: `package` declarations (shared between
    # this package's modules, never promised to users) and underscored ones, and conformances to
    # such protocols. Changing those is not a break, so they are dropped from the baseline and from
    # what is checked against it. Modules are dumped dependencies first, so a conformance to another
    # module's package protocol is known by then.
    jq -r '.. | objects | select(.isInternal == true) | .usr // empty' "$2" >> "$work/internal-usrs"
    jq --rawfile internal "$work/internal-usrs" '
        ($internal | split("\n") | map(select(length > 0)) | map({(.): true}) | add // {}) as $hidden
        | walk(if type == "object" and has("children")
               then .children |= map(select(.isInternal != true)) else . end
               | if type == "object" and has("conformances")
                 then .conformances |= map(select($hidden[.usr // ""] | not)) else . end)' \
        "$2" > "$2.public"
    mv "$2.public" "$2"
}

case "$mode" in
update)
    mkdir -p api-baseline
    for module in "${modules[@]}"; do
        dump "$module" "api-baseline/$module.json"
        echo "api-baseline/$module.json"
    done
    ;;
check)
    broken=0
    for module in "${modules[@]}"; do
        [[ -f "api-baseline/$module.json" ]] || { echo "error: no baseline for $module (Scripts/api-baseline.sh update)" >&2; exit 1; }
        dump "$module" "$work/$module.json"
        swift-api-digester -diagnose-sdk -input-paths "api-baseline/$module.json" \
            -input-paths "$work/$module.json" -o "$work/$module.diagnosis" 2>&1
        # The diagnosis is a list of section headers (/* ... */) with one line per break under them.
        breaks="$(grep -vE '^(/\*.*\*/)?[[:space:]]*$' "$work/$module.diagnosis" || true)"
        if [[ -n "$breaks" ]]; then
            echo "$module breaks its API baseline:"
            sed 's/^/    /' <<<"$breaks"
            broken=1
        else
            echo "$module: no break against api-baseline/$module.json"
        fi
    done
    if (( broken )); then
        echo "error: the public API changed incompatibly (above). If that is intended, run" >&2
        echo "       Scripts/api-baseline.sh update and list the break in CHANGELOG.md" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: $0 check|update" >&2
    exit 2
    ;;
esac
