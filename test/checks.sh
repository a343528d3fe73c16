# Sourced by the stage scripts that count their own checks, after they set
# $label (the stage's name in its lines): pass MSG and fail MSG [DETAIL...]
# print `PASS label: MSG` or `FAIL label: MSG` (each non-empty DETAIL on an
# indented line under it) and count into $passed and $failed.
passed=0
failed=0
pass() {
    echo "PASS $label: $1"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL $label: $1"
    shift
    local l
    for l in "$@"; do
        [ -n "$l" ] && echo "    $l"
    done
    failed=$((failed + 1))
}
