# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# expect.sh - the named checks of the cases.
#
# A case checks what it saw with the expect_* below. A check that holds
# says nothing; one that does not records a tag line naming what was
# expected and what was seen ("attach xdp: expected exit 0, saw exit 1:
# csum-guard: ..."), and the case goes on, so that one run names every
# check that failed. The case ends each result it reports with
#
#   expect_verdict "$t" "what passing proved"
#
# which passes with that sentence when no check failed since the last
# verdict (or expect_reset), and otherwise fails with every tag line:
# "$t: TAG: expected ..., saw ...; TAG: ...". Each case runs in a subshell
# of its own (tests/lib/cases.sh), so the record is the case's alone.
#
#   expect_eq TAG WANT GOT         GOT is WANT (as strings)
#   expect_ne TAG UNWANTED GOT     GOT is anything but UNWANTED
#   expect_match TAG REGEX GOT     GOT matches the extended REGEX ([[ =~ ]])
#   expect_glob TAG PATTERN GOT    GOT matches the shell PATTERN ([[ == ]])
#   expect_grep TAG BRE FILE       a line of FILE (-: stdin) matches BRE (grep);
#                                  else its first two lines are recorded
#   expect_gt TAG LIMIT GOT        GOT is an integer above LIMIT
#   expect_counter TAG DELTA BEFORE AFTER
#                                  a counter moved by DELTA, no more, no less
#   expect_ok TAG CMD [ARG...]     CMD exits 0; else its status and the first
#                                  line of its stderr are recorded
#   expect_refused TAG CMD [ARG...]
#                                  CMD exits non-zero
#                                  (both leave CMD's stderr in $TMPD/expect.err)
#   expect_bad_input TAG RC CMD [ARG...]
#                                  CMD refuses as bad input must: exit RC,
#                                  nothing on stdout, one line on stderr,
#                                  "csum-guard: ..."
#   expect_drop TAG OUT            the sniffer's capture OUT (inject_sniff)
#                                  saw none of the frames
#   expect_pass TAG OUT N SRC      it saw N datagrams, every one from SRC
#                                  (the source address intact)
#   unexpected TAG SEEN            a check the case made its own way failed:
#                                  SEEN says what it saw
#   unexpected TEXT                the same, where no tag stands apart from
#                                  what was seen: TEXT is recorded as it is
#   expect_clean                   no check has failed since the last verdict
#
# Each expect_* returns 0 when its check held and 1 when not (expect_ok
# and expect_refused: CMD's own status), so that a case can stop going
# down a path that failed: `expect_ok "attach $m" sc_on ... || continue`.

EXPECT_FAILED=""

# unexpected TAG SEEN, or unexpected TEXT
unexpected() {
	if [ $# -ge 2 ]; then
		EXPECT_FAILED="$EXPECT_FAILED; $1: $2"
	else
		EXPECT_FAILED="$EXPECT_FAILED; $1"
	fi
	return 1
}

expect_eq() {
	[ "$3" = "$2" ] && return 0
	unexpected "$1" "expected '$2', saw '$3'"
}

expect_ne() {
	[ "$3" != "$2" ] && return 0
	unexpected "$1" "expected anything but '$2', saw it"
}

expect_match() {
	[[ $3 =~ $2 ]] && return 0
	unexpected "$1" "expected a match of /$2/, saw '$3'"
}

expect_glob() {
	# shellcheck disable=SC2053 # the pattern is meant to match as one
	[[ $3 == $2 ]] && return 0
	unexpected "$1" "expected '$2', saw '$3'"
}

expect_grep() {
	local text

	if [ "$3" = - ]; then
		text=$(cat)
	else
		text=$(cat -- "$3" 2>/dev/null)
	fi
	grep -q -- "$2" <<<"$text" && return 0
	unexpected "$1" "expected a line matching '$2', saw '$(head -2 <<<"$text" | tr '\n' ' ')'"
}

expect_gt() {
	[ -n "$3" ] && [ "$3" -gt "$2" ] 2>/dev/null && return 0
	unexpected "$1" "expected a number above $2, saw '$3'"
}

expect_counter() {
	[ $(($4 - $3)) = "$2" ] && return 0
	unexpected "$1" "expected +$2, saw +$(($4 - $3)) ($3 -> $4)"
}

expect_ok() {
	local tag=$1 rc
	shift
	"$@" 2>"$TMPD/expect.err"
	rc=$?
	[ $rc = 0 ] && return 0
	unexpected "$tag" "expected exit 0, saw exit $rc: $(head -1 "$TMPD/expect.err")"
	return $rc
}

expect_refused() {
	local tag=$1
	shift
	"$@" 2>"$TMPD/expect.err" || return 0
	unexpected "$tag" "expected a refusal, saw exit 0"
}

expect_bad_input() {
	local tag=$1 want=$2 rc lines
	shift 2
	"$@" >"$TMPD/expect.out" 2>"$TMPD/expect.err"
	rc=$?
	lines=$(wc -l <"$TMPD/expect.err")
	[ "$rc" = "$want" ] && [ "$lines" = 1 ] && [ ! -s "$TMPD/expect.out" ] &&
		grep -q '^csum-guard: ' "$TMPD/expect.err" && return 0
	unexpected "$tag" "expected exit $want and one line 'csum-guard: ...' on stderr alone, saw exit $rc, $lines line(s): $(head -2 "$TMPD/expect.err" | tr '\n' ' ')$([ -s "$TMPD/expect.out" ] && echo '; and output')"
}

expect_drop() {
	local got

	got=$(sniff_datagrams "$2")
	[ "$got" = 0 ] && return 0
	unexpected "$1" "expected no frame through, saw ${got:-no capture} from $(sniff_sources "$2")"
}

expect_pass() {
	local got src

	got=$(sniff_datagrams "$2")
	src=$(sniff_sources "$2")
	[ "$got" = "$3" ] && [ "$src" = "$4" ] && return 0
	unexpected "$1" "expected $3 from $4, saw ${got:-none} from ${src:-nobody}"
}

expect_clean() { [ -z "$EXPECT_FAILED" ]; }

expect_reset() { EXPECT_FAILED=""; }

# expect_verdict T PASS_TEXT: PASS "T: PASS_TEXT" when every check since the
# last verdict held, else FAIL "T: " and the tag lines; then a new record.
expect_verdict() {
	if [ -z "$EXPECT_FAILED" ]; then
		pass "$1: $2"
	else
		fail "$1: ${EXPECT_FAILED#; }"
	fi
	EXPECT_FAILED=""
}
