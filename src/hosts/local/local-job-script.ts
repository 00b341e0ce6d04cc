/**
 * A local job's wrapper, in POSIX sh: constant text, never built from a plan. It runs as
 * `sh -c <this> mdplan-job <folder> <file> <args…>` in the agent's own session (the spawn is detached), so
 * it outlives mdplan: a coordinator SIGKILLed, OOM-killed or closed with a laptop's lid leaves the agent
 * running, and the next run finds it by its key (the folder's name). The agent's argv reaches it as argv,
 * never through a shell's parsing; its stdin is the folder's `input`, or nothing.
 *
 * The folder holds, as the job goes: `run` (the guard, made with O_EXCL by `set -C`: one wrapper per key,
 * however often the key is started: a rerun may start it again not knowing whether the first start got this
 * far), `pid` (the wrapper, leader of the job's process group), `out` and `err` (the agent's stdout and
 * stderr), `nostart` (the executable could not be found), and `rc` (the agent's exit status), written last.
 * `pid` and `rc` are one short write each into an empty file: a reader sees them empty or whole, and reads
 * an empty one as not yet written (local-job.ts). Only shell builtins run besides the agent: each `mkdir` or
 * `mv` here was a fork and an exec per launch, which short agents felt (issue 32's bench).
 * Nothing it writes goes to its own stdout or stderr: their pipes end with the coordinator.
 */
export const localJobScript = `
exec > /dev/null 2>&1 < /dev/null
j=$1; shift
set -C
command : > "$j/run" || exit 75
set +C
echo $$ > "$j/pid"
if [ -f "$j/input" ]; then in=$j/input; else in=/dev/null; fi
if command -v -- "$1" > /dev/null; then
  "$@" < "$in" > "$j/out" 2> "$j/err"
  rc=$?
else
  : > "$j/out"; : > "$j/err"; : > "$j/nostart"
  rc=127
fi
echo $rc > "$j/rc"
exit $rc
`

/** The wrapper's exit status when another start of the same key got there first. */
export const lostGuardStatus = 75
