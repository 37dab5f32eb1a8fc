#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a command and prints its exit status last, for tests whose pass expression must see it
# (a PASS_REGULAR_EXPRESSION replaces ctest's own check of the status).
"$@"
echo "exit $?"
