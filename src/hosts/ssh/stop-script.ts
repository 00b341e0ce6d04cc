/**
 * `$1` dir, then keys: Ctrl-C's end of a job (job-scripts.ts). Its process
 * group is ended as removeScript ends it (SIGTERM, then SIGKILL after 2 s),
 * but its folder stays, marked `stopped` (`stopping` while it is being
 * stopped, so a stop cut short is a stop too): the row still names the key, and
 * the rerun submits the key again in place (submitScript), so the agent goes
 * on in the clone it left, with its work, in the folder its session was made
 * in, as a local agent goes on in the files it left. A job that has its
 * result (`rc`) is not stopped: the rerun collects it. The sweep of a run
 * whose rows no longer name the key removes the folder.
 */
export const stopScript = `
d=$1; shift; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
for k in "$@"; do
  j=$d/jobs/$k
  [ -d "$j" ] && [ ! -f "$j/rc" ] || continue
  # Marked before anything is ended: a stop cut short (Ctrl-C pressed twice ends mdplan, and this call with it)
  # leaves a job the rerun restarts in place, never one it takes for a job that died on its own.
  : > "$j/stopping"
  # A job just submitted writes its pid within milliseconds.
  i=0; while [ ! -s "$j/pid" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done
  if [ -s "$j/pid" ]; then
    p=$(cat "$j/pid")
    kill -TERM -"$p" 2>/dev/null
    i=0; while kill -0 -"$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
    kill -KILL -"$p" 2>/dev/null
  fi
  if [ -f "$j/rc" ]; then rm -f "$j/stopping"; else mv "$j/stopping" "$j/stopped"; fi
done
`
