#!/usr/bin/env bash
# tools/bookworm_mirror.sh against apt source folders written here, each with the answer known:
# both source formats, options and keyrings carried over, entries that are not `deb bookworm`
# skipped, and nothing printed when no source names bookworm.
set -uo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect() {  # expect NAME EXPECTED: runs the script on $work/NAME
    local got
    got=$("$script" "$work/$1")
    if [ "$got" != "$2" ]; then
        echo "FAIL $1: expected '$2', got '$got'"
        failures=$((failures + 1))
    else
        echo "ok   $1: '$got'"
    fi
}

mkdir -p "$work/one-line/sources.list.d"
cat > "$work/one-line/sources.list" <<'LIST'
# a comment naming deb http://wrong.example/debian bookworm main
deb-src http://wrong.example/debian bookworm main
deb http://mirror.local/debian bookworm-updates main
deb http://mirror.local/debian bookworm main contrib
deb http://second.example/debian bookworm main
LIST
expect one-line "http://mirror.local/debian"

mkdir -p "$work/options/sources.list.d"
echo "deb [arch=amd64 signed-by=/k.gpg] http://proxy:3142/debian bookworm main" > "$work/options/sources.list.d/x.list"
expect options "[arch=amd64 signed-by=/k.gpg] http://proxy:3142/debian"

mkdir -p "$work/deb822/sources.list.d"
cat > "$work/deb822/sources.list.d/debian.sources" <<'SOURCES'
Types: deb-src
URIs: http://wrong.example/debian
Suites: bookworm

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main

Types: deb deb-src
# a comment line inside the stanza
URIs: http://mirror.corp/debian http://other.corp/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
expect deb822 "[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.corp/debian"

mkdir -p "$work/none/sources.list.d"
echo "deb http://deb.debian.org/debian trixie main" > "$work/none/sources.list.d/t.list"
expect none ""
mkdir -p "$work/empty"
expect empty ""

exit $((failures > 0))
