#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The kernel side in a virtual machine (docs/kernels.md): replay and
# validate --kernel K boot Debian's 5.10, 6.1 and 6.12 in QEMU with maplab
# as their init.  What must hold:
#   - bad input of every kind is one line and exit 2, and leaves no VM or
#     temporary folder behind (a corrupt vmlinuz, a text file, --vm-cpus 0
#     or 99, no QEMU, a cost command given --kernel);
#   - the two named traces of tests/cli/traces/versions answer as each
#     version does, on its kernel and on the designs modelling it;
#   - 200 random traces of each faithful design (hash with and without
#     prealloc, both LRUs, the LPM trie), shapes spread over sizes, key
#     sizes and flags, match each kernel op for op, and the models of 6.1
#     and 6.12 answer some of them differently (so a run that booted one
#     kernel twice would fail);
#   - with 4 and 8 vCPUs on 6.12, 100 random traces a mode of the two LRUs
#     over all the cpus match, and the common LRU stole and the per-CPU LRU
#     filled its shares.
#   - a kernel that panics is booted once more, with a line saying so, and
#     one that panics on both boots is the error (a stand-in QEMU panics);
#   - sim's kernel policies in a VM miss exactly as the designs modelling
#     that kernel, on that many cpus, and the VM's speed is not reported.
# Kernels come from the cache (fetched the first time: docs/kernels.md).
# usage: test_cli_vm.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM kernel|no-kernel
maplab=$(realpath "$1") root=$2 pinfail=$3
. "$(dirname "$0")/lib.sh"
trace=$root/examples/lru_basics.trace
versions=$root/tests/cli/traces/versions

if [ "$kernel_built" = no-kernel ]; then
    check 'no kernel side: --kernel says so' one_line_error \
        'built without the kernel side' \
        "$maplab" replay --map kernel --kernel 6.12 --trace "$trace"
    finish
    exit
fi

# --- bad input, before any VM ------------------------------------------------
for n in 0 99; do
    check "--vm-cpus $n: one line" one_line_error '^maplab validate: --vm-cpus .*1 to 8' \
        "$maplab" validate --kernel 6.12 --vm-cpus "$n" --random
done
printf 'not a kernel\n' >"$tmp/text-vmlinuz"
check 'a text file as the kernel: one line' one_line_error \
    "^maplab replay: $tmp/text-vmlinuz is not a Linux kernel image" \
    "$maplab" replay --map kernel --kernel "$tmp/text-vmlinuz" --trace "$trace"
check 'a missing kernel path: one line' one_line_error \
    "^maplab replay: $tmp/none/vmlinuz: No such file or directory" \
    "$maplab" replay --map kernel --kernel "$tmp/none/vmlinuz" --trace "$trace"
check 'a series maplab does not fetch: one line' one_line_error \
    "^maplab validate: no kernel '5.4': maplab fetches 5.10, 6.1 and 6.12" \
    "$maplab" validate --kernel 5.4 --random
check 'replay --kernel of a design: one line' one_line_error \
    '^maplab replay: --kernel boots a kernel for its own maps: give --map kernel' \
    "$maplab" replay --map lru/linux_common --kernel 6.12 --trace "$trace"
check '--cpus past the VM: one line' one_line_error \
    "^maplab validate: --cpus: cpu 2 is past the VM's 2 vCPUs" \
    "$maplab" validate --kernel 6.12 --vm-cpus 2 --random --cpus 0-3
for cmd in kbench compare explain; do
    check "$cmd --kernel: refused, with why" one_line_error \
        "^maplab $cmd: --kernel boots a kernel in a virtual machine .*timings mean nothing" \
        "$maplab" "$cmd" --map hash/linux --kernel 6.12
done

if ! command -v qemu-system-x86_64 >/dev/null; then
    if [ "${MAPLAB_REQUIRE_KERNEL:-0}" = 1 ]; then
        echo "FAIL: qemu-system-x86_64 is not installed (./lab installs it)"
        exit 1
    fi
    echo "skipped: the VM tests (qemu-system-x86_64 is not installed)"
    finish
    exit
fi

misses() { # OUTPUT POLICY COLUMN: the policy's miss count in sim's table
    awk -v p="$2" -v c="$3" '$1 == p { print $c }' <<<"$1"
}

# Every VM of this script leaves its temporary folder here, so that none
# can be missed; none may be left, and no QEMU of ours may run on.
export TMPDIR=$tmp/vm-tmp
mkdir -p "$TMPDIR"
nothing_left() {
    ! compgen -G "$TMPDIR/maplab-vm-*" >/dev/null &&
        ! pgrep -f "$TMPDIR/maplab-vm-" >/dev/null
}

# --- the kernels -------------------------------------------------------------
# Fetched once (into ~/.cache/maplab/kernels, or $MAPLAB_KERNEL_CACHE): the
# first replay on each also checks that a boot answers at all.
for k in 5.10 6.1 6.12; do
    out=$("$maplab" replay --map kernel --kernel "$k" --trace "$versions" 2>"$tmp/err"); rc=$?
    check "kernel $k: fetched, booted, replayed" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || sed 's/^/    /' "$tmp/err" | tail -3
    printf '%s\n' "$out" >"$tmp/versions-$k.out"
done
check 'no VM or temporary folder left after the boots' nothing_left

# The two rows of docs/kernels.md's first table, on each kernel: 24
# distinct inserts into a common LRU of 16 keep 8 keys on 5.10 and 6.1, 16
# on 6.12; BPF_NOEXIST on a present key of a full LRU of 4 is ok there,
# EEXIST here.
answers() { # FILE: each named trace's answer, one line: its dump's count
    # (lru_24_inserts), its BPF_NOEXIST update's result (lru_full_noexist:
    # the sixth result, after the map line and four inserts)
    awk '/^# / { t = /lru_24_inserts/ ? "24" : "noexist"; n = 0; next }
         /^  / { next }
         { n++ }
         t == "24" && /^ok [0-9]+$/ { count = $2 }
         t == "noexist" && n == 6 { noexist = $0 }
         END { printf "24:%s noexist:%s", count, noexist }' "$1"
}
old='24:8 noexist:ok' new='24:16 noexist:err EEXIST'
for k in 5.10 6.1; do
    check "kernel $k: the named traces answer as $k" test "$(answers "$tmp/versions-$k.out")" = "$old"
done
check 'kernel 6.12: the named traces answer as 6.12' test "$(answers "$tmp/versions-6.12.out")" = "$new"
# the designs, modelling each version, answer the same here (no VM)
for m in 5.10 6.1 6.12 6.18; do
    "$maplab" replay --model "$m" --trace "$versions" >"$tmp/model-$m.out"
done
for m in 5.10 6.1; do
    check "--model $m: the named traces answer as $m" test "$(answers "$tmp/model-$m.out")" = "$old"
done
for m in 6.12 6.18; do
    check "--model $m: the named traces answer as $m" test "$(answers "$tmp/model-$m.out")" = "$new"
done

# A corrupt vmlinuz (a real one, its compressed payload overwritten): the
# kernel halts early; one line with what its console said, no VM left.
cache=${MAPLAB_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/maplab/kernels}
good=$(ls "$cache"/6.12/vmlinuz-* 2>/dev/null | head -n 1)
if [ -n "$good" ]; then
    cp "$good" "$tmp/corrupt-vmlinuz"
    size=$(stat -c %s "$tmp/corrupt-vmlinuz")
    dd if=/dev/urandom of="$tmp/corrupt-vmlinuz" bs=4096 count=1 seek=$(( size / 8192 )) \
        conv=notrunc status=none
    check 'a corrupt vmlinuz: one line, what its console said' one_line_error \
        "^maplab replay: kernel .*corrupt-vmlinuz.*: the kernel stopped .*System halted" \
        timeout 120 "$maplab" replay --map kernel --kernel "$tmp/corrupt-vmlinuz" --trace "$trace"
    check 'no QEMU installed: one line' one_line_error \
        '^maplab replay: qemu-system-x86_64 is not installed' \
        env PATH=/nonexistent "$maplab" replay --map kernel --kernel "$good" --trace "$trace"
    # interrupted: the VM goes with maplab, and its folder
    "$maplab" validate --kernel "$good" --random --seeds 1-2000 >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 50); do pgrep -f "$TMPDIR/maplab-vm-" >/dev/null && break; sleep 0.2; done
    kill -TERM "$pid"; wait "$pid"; rc=$?
    check 'SIGTERM during a boot: maplab dies of it (143)' test "$rc" -eq 143
    sleep 0.5
else
    check 'the 6.12 kernel is in the cache' false
fi
check 'no VM or temporary folder left after the failures' nothing_left

# A kernel that panics is booted once more, with a line saying so; one that
# panics on both boots is the error.  A stand-in QEMU first on PATH panics
# on its first $tmp/panics starts (a panic on the console, then exit, as
# panic=-1 and -no-reboot make QEMU do), then runs the real one.
mkdir -p "$tmp/panicky"
cat >"$tmp/panicky/qemu-system-x86_64" <<EOF
#!/usr/bin/env bash
left=\$(cat "$tmp/panics")
if [ "\$left" -gt 0 ]; then
    echo \$(( left - 1 )) >"$tmp/panics"
    while [ \$# -gt 1 ] && ! { [ "\$1" = -serial ] && [ "\${2#file:}" != "\$2" ]; }; do shift; done
    printf 'Kernel panic - not syncing: Fatal exception in interrupt\n' >"\${2#file:}"
    exit 0
fi
exec "$(command -v qemu-system-x86_64)" "\$@"
EOF
chmod +x "$tmp/panicky/qemu-system-x86_64"
panicky() { # PANICS CMD...: CMD with the stand-in QEMU panicking PANICS times
    echo "$1" >"$tmp/panics"; shift
    PATH="$tmp/panicky:$PATH" "$@"
}
panicky 1 "$maplab" replay --map kernel --kernel 6.12 --trace "$versions" \
    >"$tmp/panicked.out" 2>"$tmp/err"; rc=$?
check 'a kernel that panicked once: booted again, the replay answers as 6.12' \
    test "$rc" -eq 0 -a "$(answers "$tmp/panicked.out")" = "$new"
check 'a kernel that panicked once: a line says so' \
    grep -qE '^maplab: kernel 6\.12.*: the kernel panicked \(0 of 2 traces answered\).*Fatal exception in interrupt; booting it once more$' "$tmp/err"
[ "$rc" -eq 0 ] || sed 's/^/    /' "$tmp/err"
panicky 2 "$maplab" replay --map kernel --kernel 6.12 --trace "$versions" >/dev/null 2>"$tmp/err"; rc=$?
check 'a kernel that panics on both boots: exit 2, two lines' \
    test "$rc" -eq 2 -a "$(wc -l <"$tmp/err")" -eq 2
check 'a kernel that panics on both boots: the last line is the panic' \
    grep -qE '^maplab replay: kernel 6\.12.*: the kernel panicked \(0 of 2 traces answered\)' \
    <(tail -n 1 "$tmp/err")
[ "$rc" -eq 2 ] || sed 's/^/    /' "$tmp/err"
out=$(panicky 1 "$maplab" sim --trace "$root/examples/traces/zipf.txt" --sizes 0.1 \
    --policy kernel --kernel 6.12 --vm-cpus 2 2>"$tmp/err"); rc=$?
check 'sim: a kernel that panicked while it booted is booted again' \
    test "$rc" -eq 0 -a -n "$(misses "$out" kernel 5)"
check 'sim: a line says the kernel panicked' \
    grep -qE '^maplab: kernel 6\.12.*: the kernel panicked while it booted; .*Fatal exception in interrupt; booting it once more$' "$tmp/err"
[ "$rc" -eq 0 ] || sed 's/^/    /' "$tmp/err"
check 'no VM or temporary folder left after the panics' nothing_left

# --- 200 random traces of each faithful design, on each kernel ----------------
# Shapes spread by seed: max_entries 4 to 300, key sizes 1 to 64 (LPM: 1 to
# 13 data bytes), values 1 to 24 bytes, the access flags in turn, 100 to
# 400 operations, on both cpus.
kinds=("hash zero_seed" "hash zero_seed|no_prealloc" "lru_hash zero_seed"
       "lru_hash zero_seed|no_common_lru" "lpm_trie no_prealloc")
extra=("" "|rdonly_prog" "|wronly_prog" "|numa_node" "|rdonly" "|wronly" "" "")
mkdir -p "$tmp/random"
for k in "${!kinds[@]}"; do
    read -r type flags <<<"${kinds[$k]}"
    for s in $(seq 1 200); do
        f="$flags${extra[$(( s % ${#extra[@]} ))]}"
        case "$f" in *no_common_lru*numa_node*) f=${f%|numa_node} ;; esac
        if [ "$type" = lpm_trie ]; then ks=$(( 5 + s * 13 % 13 )); else ks=$(( 1 + s * 11 % 64 )); fi
        "$maplab" gentrace --type "$type" --entries $(( 4 + s * 37 % 297 )) --key-size "$ks" \
            --value-size $(( 1 + s * 7 % 24 )) --flags "$f" --ops $(( 100 + s * 53 % 300 )) \
            --seed "$s" --cpus 2 >"$tmp/random/$k-$type-$s.trace"
    done
done
for k in 5.10 6.1 6.12; do
    out=$("$maplab" validate --kernel "$k" --vm-cpus 2 --trace "$tmp/random" 2>&1); rc=$?
    check "kernel $k: 1000 random traces match the designs modelling it" \
        grep -qE "^validate: 1000 traces, [0-9]+ trace lines, maplab \(kernel-faithful designs\) matches kernel $k\.[0-9]+.*\(VM, 2 cpus\)$" <<<"$out"
    [ "$rc" -eq 0 ] || grep -v '^  ' <<<"$out" | tail -4 | sed 's/^/    /'
done
# The kernels answered as their models; the models of 6.1 and 6.12 answer
# some of these traces differently, so the two kernels did too.
"$maplab" replay --model 6.1 --trace "$tmp/random" >"$tmp/random-6.1.out" 2>/dev/null
"$maplab" replay --model 6.12 --trace "$tmp/random" >"$tmp/random-6.12.out" 2>/dev/null
check '6.1 and 6.12 answer some random trace differently' \
    bash -c '! cmp -s "$1" "$2"' _ "$tmp/random-6.1.out" "$tmp/random-6.12.out"

# --- more cpus: 4 and 8 on 6.12 ------------------------------------------------
# The common LRU steals where every other cpu holds a node (max_entries
# below the cpu count); the per-CPU LRU fills each cpu's share of 2.
for n in 4 8; do
    before=$fail
    out=$("$maplab" validate --map lru/linux_common --kernel 6.12 --vm-cpus "$n" --random \
        --seeds 1-100 --type lru_hash --entries $(( n - 1 )) --ops 300 --cpus 0-$(( n - 1 )) 2>&1)
    check "$n cpus: the common LRU matches on 100 traces" \
        grep -qE "^validate: 100 traces, .* lru/linux_common matches kernel 6\.12.*\(VM, $n cpus\)$" <<<"$out"
    check "$n cpus: the common LRU stole" \
        grep -qE '^validate: lru/linux_common evicted [0-9]+ keys and stole [1-9][0-9]* ' <<<"$out"
    out=$("$maplab" validate --map lru/linux_percpu --kernel 6.12 --vm-cpus "$n" --random \
        --seeds 1-100 --type lru_hash --entries $(( 2 * n )) --ops 300 --cpus 0-$(( n - 1 )) 2>&1)
    check "$n cpus: the per-CPU LRU matches on 100 traces" \
        grep -qE "^validate: 100 traces, .* lru/linux_percpu matches kernel 6\.12.*\(VM, $n cpus\)$" <<<"$out"
    check "$n cpus: the per-CPU LRU filled its shares (evicted)" \
        grep -qE '^validate: lru/linux_percpu evicted [1-9][0-9]* keys' <<<"$out"
    [ "$fail" = "$before" ] || grep -v '^  ' <<<"$out" | tail -4 | sed 's/^/    /'
done
# --- sim: the kernel policies in a VM kept up for the whole run ---------------
# On 6.1 with 2 vCPUs and on 6.12 with 4 serial cpus, the kernel's two LRUs
# miss exactly as the designs modelling that kernel on that many cpus do;
# the VM's speed is not reported.
for run in "6.1 2 --threads 1" "6.12 4 --cpus 4"; do
    read -r k n mode m <<<"$run"
    out=$("$maplab" sim --trace "$root/examples/traces/zipf.txt" --sizes 0.1 \
        --policy lru/linux_common,lru/linux_percpu,kernel,kernel:no_common_lru \
        --kernel "$k" --vm-cpus "$n" "$mode" "$m" 2>&1)
    # policy entries thr [cpus] requests misses ...: --cpus adds a column
    [ "$mode" = --cpus ] && col=6 || col=5
    common=$(misses "$out" lru/linux_common "$col")
    percpu=$(misses "$out" lru/linux_percpu "$col")
    check "sim --kernel $k, $n cpus: the kernel's common LRU misses as lru/linux_common" \
        test -n "$common" -a "$(misses "$out" kernel "$col")" = "$common"
    check "sim --kernel $k, $n cpus: the per-CPU LRU misses as lru/linux_percpu" \
        test -n "$percpu" -a "$(misses "$out" kernel:no_common_lru "$col")" = "$percpu"
    before=$fail
    check "sim --kernel $k: no speed for the VM's rows" \
        grep -qE '^kernel +[0-9]+ .* - +[0-9.-]+ +- +-$' <<<"$out"
    [ "$fail" = "$before" ] || sed 's/^/    /' <<<"$out"
done
# Without a kernel policy no VM boots: the designs model K on N cpus.
out=$("$maplab" sim --trace "$root/examples/traces/zipf.txt" --sizes 0.1 \
    --policy lru/linux_common --kernel 5.10 --vm-cpus 4 2>&1)
check 'sim --kernel without a kernel policy: the designs model it, no VM' \
    grep -q 'the designs model kernel 5.10 on 4 cpus (no kernel policy: no VM)' <<<"$out"
newest=$("$maplab" sim --trace "$root/examples/traces/zipf.txt" --sizes 0.1 \
    --policy lru/linux_common --kernel 5.10 --vm-cpus 4 --model 6.18 2>&1)
check "sim --kernel 5.10 without a VM: 5.10's misses, not 6.18's" \
    test -n "$(misses "$out" lru/linux_common 5)" -a \
    "$(misses "$out" lru/linux_common 5)" != "$(misses "$newest" lru/linux_common 5)"
check 'sim --kernel 5.10 with a kernel policy: one line, why' one_line_error \
    '^maplab sim: the kernel policies run a BPF program of BPF_PROG_TYPE_SYSCALL, which kernel 5.10 lacks' \
    "$maplab" sim --trace "$root/examples/traces/zipf.txt" --sizes 0.1 --policy kernel --kernel 5.10
check 'sim --kernel with more threads than vCPUs: one line' one_line_error \
    "^maplab sim: --threads 3: the VM has 2 vCPUs" \
    "$maplab" sim --trace "$root/examples/traces/zipf.txt" --sizes 0.1 --policy kernel \
    --kernel 6.12 --vm-cpus 2 --threads 3
check 'no VM or temporary folder left at the end' nothing_left

finish
