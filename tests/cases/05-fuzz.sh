# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 05-fuzz.sh - the fuzz targets of tests/fuzz/ over their corpora, briefly.
# A host case: the parsers are the same for every kernel and backend.
#
# Each target (built by make tools where clang has its fuzzer runtime)
# runs every input of tests/fuzz/corpus/NAME, each seed and each crash
# found before, then a short fixed-seed run from them: seconds, not the
# minutes of make fuzz. A target that crashes, or an oracle that disagrees
# (they abort()), fails the case with the input it stopped on. What a run
# adds goes to $TMPD, never into the tree.

FUZZ_RUNS=${CG_FUZZ_RUNS:-20000}

case_fuzz() {
	local name=$1 t="fuzz/$1" bin=$BLD/fuzz/fuzz_$1 corpus=$TOP/tests/fuzz/corpus/$1
	local out=$TMPD/fuzz-$1 seeds runs

	if [ ! -x "$bin" ]; then
		if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
		     clang -fsanitize=fuzzer,address -x c - -o "$TMPD/fuzz-probe" 2>"$TMPD/fuzz-probe.err"; then
			skip "$t: clang cannot link -fsanitize=fuzzer here (no libFuzzer runtime): $(head -1 "$TMPD/fuzz-probe.err")"
		else
			fail "$t: $bin is missing: make tools builds it"
		fi
		return
	fi
	seeds=$(find "$corpus" -type f 2>/dev/null | wc -l)
	if [ "$seeds" = 0 ]; then
		fail "$t: no corpus in tests/fuzz/corpus/$name"
		return
	fi
	mkdir -p "$out/new"
	# every input of the corpus once
	if ! "$bin" -runs=0 -artifact_prefix="$out/" "$corpus" >"$out/replay.log" 2>&1; then
		fail "$t: an input of its corpus fails: $(grep -m1 -E 'ERROR|SUMMARY|runtime error' "$out/replay.log")"
		return
	fi
	# then a short run from them, the same every time
	if ! "$bin" -seed=1 -runs="$FUZZ_RUNS" -artifact_prefix="$out/" "$out/new" "$corpus" \
	     >"$out/run.log" 2>&1; then
		fail "$t: a new input fails ($(ls "$out"/crash-* "$out"/leak-* 2>/dev/null | head -1)): $(grep -m1 -E 'ERROR|SUMMARY|runtime error' "$out/run.log")"
		return
	fi
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/run.log")
	if [ -z "$runs" ] || [ "$runs" -lt "$FUZZ_RUNS" ]; then
		fail "$t: the run did not finish its $FUZZ_RUNS inputs: $(tail -1 "$out/run.log")"
		return
	fi
	pass "$t: $seeds inputs of its corpus and $runs more (seed 1) without a crash or a disagreement with its oracle; $(grep -o 'cov: [0-9]* ft: [0-9]*' "$out/run.log" | tail -1)"
}
cg_host_case fuzz nl
cg_host_case fuzz verdict
cg_host_case fuzz escape
cg_host_case fuzz tcpopt
