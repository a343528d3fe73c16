#!/usr/bin/env bash
# Prints the outcome of every `make check` stage and the grand total, and
# fails when any stage failed or did not finish.
#
#   test/check_report.sh RESULT_DIR STAGE...
#
# Each stage left RESULT_DIR/STAGE.res holding "PASSED FAILED STATUS [SECONDS]"
# (test/run_tests.sh --result, test/stage.sh).
set -u
dir=$1
shift
tp=0
tf=0
bad=0
echo
echo "== summary"
for st in "$@"; do
    f="$dir/$st.res"
    if [ ! -s "$f" ]; then
        printf '  FAIL %-28s did not run or did not finish\n' "$st"
        tf=$((tf + 1))
        bad=1
        continue
    fi
    read -r p n status secs <"$f"
    status=${status:-ok}
    t=""
    [ -n "${secs:-}" ] && t=" ($secs s)"
    [ "$n" -eq 0 ] || status=fail
    case "$status" in
    skip) printf '  skip %-28s (see its output above)\n' "$st" ;;
    ok) printf '  ok   %-28s %s passed, %s failed%s\n' "$st" "$p" "$n" "$t" ;;
    *) printf '  FAIL %-28s %s passed, %s failed%s\n' "$st" "$p" "$n" "$t"; bad=1 ;;
    esac
    tp=$((tp + p))
    tf=$((tf + n))
done
echo "$tp passed, $tf failed"
[ "$bad" -eq 0 ] && [ "$tf" -eq 0 ]
