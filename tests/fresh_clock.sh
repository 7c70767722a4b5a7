#!/bin/sh
# Run a test as on a machine booted seconds ago: in a time namespace whose monotonic clock reads about 5 s
# (unshare --time, util-linux; Linux >= 5.6, root).  Time budgets count on that clock and must not depend
# on how long the machine has been up.  Exit 77 (ctest: skipped, with the reason) where a time namespace
# cannot be made.
up=$(cut -d. -f1 /proc/uptime)
offset=$((5 - up))
if ! unshare --time --fork --monotonic="$offset" true 2> /dev/null; then
    echo "fresh_clock: cannot make a time namespace here (unshare --time needs root and Linux >= 5.6): skipped"
    exit 77
fi
exec unshare --time --fork --monotonic="$offset" "$@"
