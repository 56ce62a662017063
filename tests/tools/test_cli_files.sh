#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_cli_files.sh -- what the CLI does with the files it is given:
#  - an output never replaces an input (the parameters, a partition, the INI), by any
#    name of it (./x, a hard link, a symbolic link); an existing file of another kind
#    only with --force; an interrupted write leaves no file under the real name and no
#    temporary file;
#  - every file option names the kind of file it got when it is the wrong one, before
#    anything is parsed or loaded;
#  - what needs only headers and the INI is checked before the parameters load (--device,
#    a partition of another circuit);
#  - where a bare --params name is read from (the parameter cache, else the current
#    directory, with a warning).
set -u

: "${top_builddir:?run through make check}"
SP="$(cd "$top_builddir" && pwd)/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_files_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
. "$top_srcdir/tests/tools/cli_lib.sh" # fail, expect, has, lacks
# same FILE COPY WHAT: the file still has the bytes of its copy
same() { cmp -s "$1" "$2" || fail "$3: $1 changed"; }
# the inputs as they were, so one failure does not hide the checks after it
restore() { cp params.copy a/circuit.params; cp spa.copy a/partition-00.spa; cp ini.copy two.ini; }

cat >"$T/two.ini" <<EOF
[provider]
log_level = warn
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
EOF
"$SP" setup --constraints 300 --inputs 3 --partitions 6 --seed 7 --out "$T/a" >/dev/null 2>&1 || fail "setup a"
"$SP" setup --constraints 200 --inputs 3 --partitions 1 --seed 8 --out "$T/c" >/dev/null 2>&1 || fail "setup c"
A="$T/a"
cp "$A/circuit.params" "$T/params.copy"
cp "$A/partition-00.spa" "$T/spa.copy"
cp "$T/two.ini" "$T/ini.copy"
cd "$T" || exit 1

# ---- outputs never replace inputs -----------------------------------------------------
expect 2 "--out is the --params file" -- "$SP" prove -c two.ini --params a/circuit.params --out a/circuit.params a/partition-00.spa
has "error: --out a/circuit.params: that is the --params file of this command; an output never replaces an input" "--out = --params: the message"
same a/circuit.params params.copy "--out = --params"
expect 2 "--out is the --params file by another name" -- "$SP" prove -c two.ini --params a/circuit.params --out ./a/../a/circuit.params a/partition-00.spa
has "that is the --params file of this command (a/circuit.params, the same file)" "--out = --params by another name"
ln a/circuit.params hard.params
expect 2 "--out is a hard link to the --params file" -- "$SP" prove -c two.ini --params a/circuit.params --out hard.params a/partition-00.spa
has "that is the --params file" "hard link"
ln -s a/circuit.params soft.params
expect 2 "--out is a symbolic link to the --params file" -- "$SP" prove -c two.ini --params a/circuit.params --out soft.params a/partition-00.spa
same a/circuit.params params.copy "--out = links to --params"
expect 2 "--out is a partition file" -- "$SP" prove -c two.ini --params a/circuit.params --out a/partition-00.spa a/partition-00.spa
has "that is the partition file of this command" "--out = a partition"
same a/partition-00.spa spa.copy "--out = a partition"
expect 2 "--out is the INI" -- "$SP" prove -c two.ini --params a/circuit.params --out two.ini a/partition-00.spa
has "that is the INI file of this command" "--out = the INI"
same two.ini ini.copy "--out = the INI"
expect 2 "SEALPROV_TIMELINE is the --params file" -- env SEALPROV_TIMELINE=a/circuit.params "$SP" prove -c two.ini --params a/circuit.params --out x.proofs a/partition-00.spa
has "SEALPROV_TIMELINE a/circuit.params: that is the --params file" "timeline = --params"
same a/circuit.params params.copy "SEALPROV_TIMELINE = --params"
test -e x.proofs && fail "a refused prove wrote its proof file"
# an existing file of another kind: only with --force; a proof file: replaced
echo "my notes" >notes.txt
expect 2 "--out over a text file" -- "$SP" prove -c two.ini --params a/circuit.params --out notes.txt a/partition-00.spa
has "error: --out notes.txt: the file exists and is a text file, not a proof file; give another name, or --force to replace it" "--out over a text file"
grep -q "my notes" notes.txt || fail "--out over a text file: it changed"
expect 0 "--out over a text file with --force" -- "$SP" prove -c two.ini --params a/circuit.params --out notes.txt --force a/partition-00.spa
test "$(wc -c <notes.txt)" -eq 192 || fail "--force: the text file was not replaced by the proof"
expect 0 "--out over a proof file" -- "$SP" prove -c two.ini --params a/circuit.params --out notes.txt a/partition-00.spa a/partition-01.spa
test "$(wc -c <notes.txt)" -eq 384 || fail "a proof file was not replaced"
# wtns: the .spa is its input, a .wtns its kind
expect 2 "wtns over its input" -- "$SP" wtns a/partition-00.spa ./a/partition-00.spa
has "that is the partition file of this command" "wtns over its input"
same a/partition-00.spa spa.copy "wtns over its input"
expect 2 "wtns over a .params file" -- "$SP" wtns a/partition-00.spa hard.params
has "the file exists and is a .params parameter file, not a circom .wtns witness" "wtns over a .params"
same a/circuit.params params.copy "wtns over a .params"
expect 0 "wtns" -- "$SP" wtns a/partition-00.spa w.wtns
expect 0 "wtns over a .wtns" -- "$SP" wtns a/partition-01.spa w.wtns
# the snarkjs mode: its outputs against its inputs, before the key is read
printf 'zkey not really' >fake.zkey
expect 2 "prove --zkey: --out-proof is the witness" -- "$SP" prove --zkey fake.zkey --wtns w.wtns --out-proof w.wtns
has "error: --out-proof w.wtns: that is the --wtns file of this command" "--out-proof = --wtns"
expect 2 "prove --zkey: --out-public is --out-proof" -- "$SP" prove --zkey fake.zkey --wtns w.wtns --out-proof p.json --out-public ./p.json
has "error: --out-public ./p.json: that is the --out-proof file of this command" "--out-public = --out-proof"
# soak's outputs (sealprov-bench: not built with configure --disable-benchmarks)
if [ "${SP_BENCHMARKS:-yes}" = yes ]; then
  expect 2 "soak --series is the INI" -- "$SP" soak -c two.ini --dir soakdir --series two.ini
  has "error: --series two.ini: that is the INI file of this command" "soak --series = INI"
  same two.ini ini.copy "soak --series = INI"
fi

# ---- an interrupted write: nothing under the real name, no temporary file -------------
restore
# A file size limit of 1 block stops the process (SIGXFSZ) in the middle of writing the
# 1152 bytes of 6 proofs (and of the .wtns).
ls -a >before.ls
P6="a/partition-00.spa a/partition-01.spa a/partition-02.spa a/partition-03.spa a/partition-04.spa a/partition-05.spa"
# (the shell that runs them says "File size limit exceeded": its stderr is dropped)
# shellcheck disable=SC2086
sh -c 'ulimit -f 1; exec "$0" prove -c two.ini --params a/circuit.params --out cut.proofs "$@"' "$SP" $P6 >"$T/out" 2>/dev/null
[ $? -ne 0 ] || fail "prove under a 1-block file size limit succeeded"
test -e cut.proofs && fail "an interrupted prove left a file under the real name"
sh -c 'ulimit -f 1; exec "$0" wtns a/partition-00.spa cut.wtns' "$SP" >"$T/out" 2>/dev/null
[ $? -ne 0 ] || fail "wtns under a 1-block file size limit succeeded"
test -e cut.wtns && fail "an interrupted wtns left a file under the real name"
ls -a >after.ls
echo after.ls >>before.ls
sort -o before.ls before.ls
cmp -s before.ls after.ls || { fail "an interrupted write left files behind"; diff before.ls after.ls; }

# ---- the kind of each file, before it is parsed -----------------------------------------
restore
expect 2 "--params a .spa" -- "$SP" prove -c two.ini --params a/partition-00.spa --out x.proofs a/partition-00.spa
has "error: a/partition-00.spa is a .spa partition file; --params takes a .params file" "--params .spa"
lacks "flag bits" "--params .spa: no parser message"
expect 2 "--params a .vk" -- "$SP" prove -c two.ini --params a/circuit.vk --out x.proofs a/partition-00.spa
has "error: a/circuit.vk is a .vk verifying key; --params takes a .params file" "--params .vk"
expect 2 "a .params as a partition" -- "$SP" prove -c two.ini --params a/circuit.params --out x.proofs a/circuit.params
has "error: a/circuit.params is a .params parameter file; prove takes partition files (.spa)" "operand .params"
expect 2 "--r1cs a .params" -- "$SP" prove -c two.ini --params a/circuit.params --r1cs a/circuit.params --out x.proofs a/partition-00.spa
has "error: a/circuit.params is a .params parameter file; --r1cs takes a circom .r1cs" "--r1cs .params"
expect 1 "-c a .params" -- "$SP" prove -c a/circuit.params --params a/circuit.params --out x.proofs a/partition-00.spa
has "error: a/circuit.params is a .params parameter file; -c takes an INI file" "-c .params"
expect 2 "verify --proofs a .spa" -- "$SP" verify --vk a/circuit.vk --proofs a/partition-00.spa a/partition-00.spa
has "error: a/partition-00.spa is a .spa partition file; --proofs takes a proof file" "--proofs .spa"
expect 2 "verify a .vk as a partition" -- "$SP" verify --vk a/circuit.vk --proofs notes.txt a/circuit.vk
has "error: a/circuit.vk is a .vk verifying key; verify takes partition files (.spa)" "verify operand .vk"
expect 2 "wtns of a .params" -- "$SP" wtns a/circuit.params y.wtns
has "error: a/circuit.params is a .params parameter file; wtns takes a partition file" "wtns .params"
if [ "${SP_BENCHMARKS:-yes}" = yes ]; then
  expect 2 "bench load of a .spa" -- "$SP" bench load a/partition-00.spa
  has "error: a/partition-00.spa is a .spa partition file; bench load takes .params files" "bench load .spa"
fi
expect 1 "check-config of a .params" -- "$SP" check-config a/circuit.params
has "is a .params parameter file; -c takes an INI file" "check-config .params"

# ---- checks before the load -----------------------------------------------------------
restore
expect 2 "--device 5 of 2" -- "$SP" --progress prove -c two.ini --device 5 --params a/circuit.params --out x.proofs a/partition-00.spa
has "error: --device 5: there is no device 5: two.ini has 2 devices, 0 to 1" "--device 5: the message"
lacks "device_mask" "--device 5: no ABI field"
lacks "loading the parameters" "--device 5: before the load"
expect 1 "a partition of another circuit" -- "$SP" --progress prove -c two.ini --params c/circuit.params --out x.proofs a/partition-00.spa
has "a/partition-00.spa does not fit the parameters c/circuit.params" "another circuit: the message"
lacks "loading the parameters" "another circuit: before the load"
head -c 5000 a/circuit.params >trunc.params
expect 1 "truncated parameters" -- "$SP" --progress prove -c two.ini --params ./trunc.params --out x.proofs a/partition-00.spa
lacks "loading the parameters" "truncated parameters: before the load"
grep 'error: parameters:' "$T/out" | sed 's/.*error: parameters: //' >prove.msg
"$SP" inspect ./trunc.params >/dev/null 2>inspect.msg
sed -i 's/.*error: //' inspect.msg
cmp -s prove.msg inspect.msg || { fail "prove and inspect say different things of one truncated file"; cat prove.msg inspect.msg; }
grep -q "at byte" prove.msg || fail "truncated parameters: no byte offset"

# ---- where --params NAME is read ------------------------------------------------------
mkdir cache here
cp a/circuit.params cache/cached.params
cp a/circuit.params here/local.params
cp a/circuit.params cache/both.params
cp a/circuit.params here/both.params
cd here || exit 1
export FIL_PROOFS_PARAMETER_CACHE="$T/cache"
expect 0 "a bare name in the cache" -- "$SP" prove -c ../two.ini --params cached.params --out ../x.proofs ../a/partition-00.spa
lacks "warning" "a bare name in the cache: no warning"
expect 0 "a bare name only here" -- "$SP" prove -c ../two.ini --params local.params --out ../x.proofs ../a/partition-00.spa
has "warning: --params local.params: not in the parameter cache ($T/cache, \$FIL_PROOFS_PARAMETER_CACHE); using ./local.params of the current directory" "a bare name only here"
expect 0 "a bare name in both" -- "$SP" prove -c ../two.ini --params both.params --out ../x.proofs ../a/partition-00.spa
has "warning: --params both.params: the parameter cache's $T/cache/both.params is used" "a bare name in both"
expect 1 "a bare name nowhere" -- "$SP" prove -c ../two.ini --params none.params --out ../x.proofs ../a/partition-00.spa
has "error: --params none.params: not found: neither in the parameter cache ($T/cache/none.params, from \$FIL_PROOFS_PARAMETER_CACHE) nor in the current directory (./none.params)" "a bare name nowhere"
unset FIL_PROOFS_PARAMETER_CACHE
cd "$T" || exit 1
"$SP" help prove >"$T/out" 2>&1
has "a bare NAME is looked up in the Filecoin parameter cache" "help prove: where --params looks"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all file checks passed"
exit 0
