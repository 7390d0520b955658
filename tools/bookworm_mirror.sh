#!/usr/bin/env bash
# Prints the mirror the system already fetches Debian bookworm from (a local mirror or proxy
# included), for tools/setup.sh to add bookworm-backports from the same place: the URI of the first
# `deb` entry for suite `bookworm`, in one-line format (sources.list, *.list, with its [options]) or
# deb822 (*.sources stanzas, with a Signed-By keyring file). Prints "[options] URI", or nothing when
# no source names bookworm.
# Usage: tools/bookworm_mirror.sh [APT_DIR]   (default /etc/apt)
set -euo pipefail
apt=${1:-/etc/apt}
files=()
for f in "$apt/sources.list" "$apt"/sources.list.d/*.list "$apt"/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || exit 0
awk '
    # deb822 stanzas end at a blank line, at the end of a file and at the end of input.
    FNR == 1 { judge(); sources = FILENAME ~ /\.sources$/ }
    sources && /^[ \t]*$/ { judge(); next }
    sources && /^[ \t]*#/ { next }
    sources {
        key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
        if (key == "types") types = $0
        else if (key == "uris") uris = $0
        else if (key == "suites") suites = $0
        else if (key == "signed-by" && $0 ~ /^\//) signed = $0  # a keyring file, not an inline key
        next
    }
    /^[ \t]*deb[ \t]/ {
        options = ""; i = 1  # $i: the last field before the URI
        if ($2 ~ /^\[/) {  # [opt=val ...] up to the closing bracket
            options = $2; i = 2
            while (options !~ /\]$/ && i < NF) options = options " " $(++i)
        }
        if ($(i + 2) == "bookworm") found((options == "" ? "" : options " ") $(i + 1))
    }
    END { judge() }
    function judge() {
        if (index(" " types " ", " deb ") && index(" " suites " ", " bookworm ") && uris != "") {
            split(uris, u, " ")
            found((signed == "" ? "" : "[signed-by=" signed "] ") u[1])
        }
        types = ""; uris = ""; suites = ""; signed = ""
    }
    function found(line) { if (!done) print line; done = 1 }
' "${files[@]}"
