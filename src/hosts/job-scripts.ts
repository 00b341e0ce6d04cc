import {jobSays} from './job-control.js'

/**
 * The remote half of a job, in POSIX sh plus git and GNU tail: constant
 * text, never built from a plan. Everything an attempt brings (argv, stdin,
 * environment, the base commit) travels as files in a tar archive on stdin;
 * only the job folder's parent and the key (checked: `isSafeKey`) are
 * arguments, so no prompt ever passes through a shell.
 *
 * A job folder `<dir>/jobs/<key>/` holds `pid` (the job's process group),
 * `out` and `err` (the agent's stdout and stderr), `agent.rc`, and `rc`,
 * written last with an atomic rename once the work is committed and bundled.
 */

/**
 * `$1` dir, `$2` key, `$3` byte offset; stdin: the job's tar archive. `mkdir`
 * of the folder is the guard: one process per key, however often the same
 * key is submitted. The base commit goes into the host's cache repository
 * (`<dir>/cache.git`) once, from a bundle of what the cache lacks; every job
 * checks out from there (git alternates), so a job carries no history of its
 * own. A folder marked `stopped` (stopScript) is the same key's job started
 * again in place, its clone kept. Says `mdplan-job submitted` or `exists` on
 * stderr, then follows the job's output in the same call (one round trip per launch); `need-base`
 * (nothing submitted) when the cache lacks the base and the archive did not
 * bring what it needs.
 */
export const submitScript = `
d=$1; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
j=$d/jobs/$2
c=$d/cache.git
[ -d "$d/staging" ] && [ -d "$d/jobs" ] || mkdir -p "$d/jobs" "$d/staging" || exit 3
umask 077
s=$d/staging/$2.$$
# Unpacked before the guard: a submit cut off mid-archive (its coordinator killed) leaves no job folder behind.
mkdir "$s" && tar -x -f - -C "$s" || { rm -rf "$s"; echo "${jobSays.badArchive}" >&2; exit 3; }
read -r b < "$s/job"
# Two first jobs may make it at once: git init of an existing repository only says so.
[ -d "$c" ] || { git init -q --bare "$c" && git -C "$c" config gc.auto 0; }
# A base's ref is written by a fetch that checked the objects are all there: the ref alone says the cache holds it.
if [ -f "$s/base.bundle" ]; then
  { read -r _; read -r r; } < "$s/job"
  [ -f "$c/$r" ] || git -C "$c" fetch -q "$s/base.bundle" "+$r:$r" 2> "$s/fetch.err" || git -C "$c" cat-file -e "$b^{commit}" 2> /dev/null || {
    # Not even the whole history went in: the cache is broken (truncated packs, a tool's damage). It is set
    # aside (cache.git.broken.PID, for a person to look at) and a new one takes its place.
    [ -f "$s/whole" ] && mv "$c" "$c.broken.$$" && git init -q --bare "$c" && git -C "$c" config gc.auto 0 &&
      git -C "$c" fetch -q "$s/base.bundle" "+$r:$r" 2> "$s/fetch.err" && echo "${jobSays.newCache} $c.broken.$$" >&2
  }
  rm -f "$s/base.bundle"
fi
if [ ! -f "$c/refs/mdplan/bases/$b" ] && ! { git -C "$c" cat-file -e "$b^{commit}" 2> /dev/null && git -C "$c" update-ref "refs/mdplan/bases/$b" "$b"; }; then
  [ -s "$s/fetch.err" ] && sed 's/^/${jobSays.fetch} /' "$s/fetch.err" >&2
  rm -rf "$s"
  echo "${jobSays.needBase}" >&2
  exit 0
fi
echo "$c" > "$s/cache"
if mkdir "$j" 2>/dev/null; then
  mv "$s"/* "$j"/ && rmdir "$s"
  (cd "$j" && setsid sh "$j/run.sh" "$j" < /dev/null > /dev/null 2>&1 &)
  umask 022
  echo "${jobSays.submitted}" >&2
elif mv "$j/stopped" "$s/restart" 2> /dev/null || mv "$j/stopping" "$s/restart" 2> /dev/null; then
  # A job Ctrl-C stopped (stopScript) starts again in its own folder, its clone and the work in it kept; the
  # rename is the guard (one submit takes it); everything else of the folder is this submit's. A stop cut short
  # may have left its process group: it is ended first.
  [ -s "$j/pid" ] && kill -KILL -"$(cat "$j/pid")" 2> /dev/null
  for f in "$j"/* "$j"/.[!.]*; do [ "$f" = "$j/work" ] || rm -rf "$f"; done
  rm -f "$s/restart"
  mv "$s"/* "$j"/ && rmdir "$s"
  (cd "$j" && setsid sh "$j/run.sh" "$j" < /dev/null > /dev/null 2>&1 &)
  umask 022
  echo "${jobSays.submitted}" >&2
else
  rm -rf "$s"
  umask 022
  echo "${jobSays.exists}" >&2
fi
`

/**
 * Shell text both job scripts (runScript, the Kubernetes pod's) end with: it
 * turns what the agent left in its clone `$wk` into one branch grown from the base,
 * bundled as `$j/result.bundle`, and says whether that worked (`collected`
 * 0 or 1). What the agent left uncommitted is committed by it; an agent that
 * committed its own work gets an empty commit on top that carries the
 * attempt's key (the result is fenced by the key of its last commit); an
 * agent that ended on another branch, or on a detached HEAD, has its work
 * where HEAD is. A commit that fails (a broken cache under the alternates, a
 * full disk) is a failure to report, never "the agent changed nothing".
 * Needs `j`, `wk` (the agent's clone), `base`, `branch`, `name`, `email` and `key`.
 */
export const collectScript = `
collect() {
  cd "$wk" 2>/dev/null || return 0
  { read -r head < .git/HEAD; } 2> /dev/null
  [ "$head" = "ref: refs/heads/$branch" ] || git checkout -q -B "$branch" || return 1
  git add -A || return 1
  git diff --cached --quiet || git -c user.name="$name" -c user.email="$email" commit -q --no-verify -F "$j/message" || return 1
  h=$(git rev-parse HEAD) || return 1
  [ "$h" = "$base" ] && return 0
  # The key as a whole line of the last commit's message (no grep: a container's image may lack it).
  msg=$(git log -1 --format=%B) || return 1
  nl='
'
  case "$nl$msg$nl" in
    *"$nl""Mdplan-Key: $key$nl"*) ;;
    *) git -c user.name="$name" -c user.email="$email" commit -q --no-verify --allow-empty -F "$j/message" || return 1 ;;
  esac
  git bundle create "$j/result.bundle" "$branch" "^$base"
}
collected=0
collect >> "$j/err" 2>&1 || { collected=1; rm -f "$j/result.bundle"; echo "mdplan: the agent's work could not be committed there (see above): nothing of it comes back" >> "$j/err"; }
`

/**
 * The job itself, its own session and process group; `$1` the job folder.
 * Its base comes from the host's cache (`cache` names it: ssh hosts) or from
 * the bundle in the folder (containers, Slurm).
 */
export const runScript = `
j=$1
cd "$j" || exit 1
# A beacon the follow watches (tail --pid): this script reaps it the moment the job is done. Its own pid would
# do only where init reaps at once; under one that reaps late (a container's, a VM agent's) a finished job
# stays a zombie that kill -0 still finds, for seconds. Killed with the job's process group on a cancel.
# Its pid is kept here too: a folder removed under the job (a cancel, mdplan clean) must not leave it waiting on it.
sleep 2147483647 & mdplan_beacon=$!; echo $mdplan_beacon > beacon
echo $$ > pid
: > out; : > err
{ read -r base; read -r ref; read -r branch; read -r prefix; read -r name; read -r email; read -r key; read -r from; } < job
# The agent's clone: the one the earlier job named by from made, when this job goes on with that one's session (a
# CLI finds its sessions by the folder it runs in) and work; else its own, kept from before when a stopped job
# starts again in place (submitScript). Only a clone whose checkout finished (.git/mdplan-ready) is gone on in.
# The commit an earlier attempt's end made of the work (its key's) is taken back: the agent finds its work as it
# left it, uncommitted, as a local agent does, and the result is one commit.
wk=$j/work
[ -n "$from" ] && [ -f "\${j%/*}/$from/work/.git/mdplan-ready" ] && wk=\${j%/*}/$from/work
work() {
  if [ -f "$wk/.git/mdplan-ready" ]; then
    cd "$wk" && m=$(git log -1 --format=%B) && a=\${key%-*} && nl='
' && case "$nl$m" in *"$nl""Mdplan-Key: \${a%-a*}-a"*) [ "$(git rev-parse HEAD)" = "$base" ] || git reset -q --soft HEAD~1;; esac
  elif rm -rf "$wk" && [ -f "$j/cache" ]; then
    read -r cache < "$j/cache"
    git init -q --template= "$wk" && echo "$cache/objects" > "$wk/.git/objects/info/alternates" && cd "$wk" &&
      git checkout -q -b "$branch" "$base" && : > .git/mdplan-ready
  else
    git init -q --template= "$wk" && cd "$wk" && git fetch -q "$j/base.bundle" "$ref:refs/heads/$branch" && git checkout -q "$branch" && : > .git/mdplan-ready
  fi || { echo "mdplan: could not check out the base commit" >&2; echo 125 > "$j/agent.rc"; return; }
  cd "$wk/$prefix" || { echo 125 > "$j/agent.rc"; return; }
  set -a; . "$j/env.sh"; set +a
  rm -f "$j/env.sh"
  if [ -f "$j/input" ]; then in=$j/input; else in=/dev/null; fi
  xargs -0 -x sh -c 'in=$1; shift; "$@" < "$in"; echo $? > "$MDPLAN_JOB/agent.rc"' mdplan-agent "$in" < "$j/argv"
}
MDPLAN_JOB=$j; export MDPLAN_JOB
work > "$j/out" 2> "$j/err"
${collectScript}
{ read -r rc < "$j/agent.rc" && [ -n "$rc" ]; } 2> /dev/null || rc=125
[ "$rc" = 0 ] && [ "$collected" = 1 ] && rc=125
echo "$rc" > "$j/rc.tmp"
mv "$j/rc.tmp" "$j/rc"
kill "$mdplan_beacon" 2>/dev/null; wait
`

/**
 * `$1` dir, `$2` key, `$3` byte offset: stdout is the job's output from that
 * byte on, followed until the job ends; then stderr says how it ended
 * (job-control.ts): the job's stderr and its result bundle, each framed by
 * its size (`err N`, `bundle N`), then `rc N`; or `lost` when it died
 * without a result, `unknown` when there is no such job or it was stopped,
 * `cancelled` when mdplan's own cancel ended it and was cut short before it
 * removed the folder, `nostart` when its folder is there but its script
 * never started (its agent never ran).
 */
export const followScript = `
d=$1; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
cd "$d/jobs/$2" 2>/dev/null || { echo "${jobSays.unknown}" >&2; exit 0; }
# A stopped job is not running: a rerun submits it again under its key (in place, see submitScript).
{ [ -f stopped ] || [ -f stopping ]; } && [ ! -f rc ] && { echo "${jobSays.unknown}" >&2; exit 0; }
[ -f cancelled ] && [ ! -f rc ] && { echo "${jobSays.cancelled}" >&2; exit 0; }
# A job just submitted writes its pid within milliseconds: look often at first, then every 0.1 s for a minute.
# A folder whose script never wrote it never ran its agent (the folder is whole: submitScript renamed it in).
i=0
while [ ! -s pid ]; do i=$((i+1)); [ $i -gt 650 ] && { echo "${jobSays.nostart}" >&2; exit 0; }; if [ $i -le 50 ]; then sleep 0.01; else sleep 0.1; fi; done
: >> out
# The job's beacon (run.sh) ends, reaped, once the result is ready; jobs from before it had none.
{ read -r p < beacon && [ -n "$p" ]; } 2> /dev/null || read -r p < pid
tail -c +$(($3+1)) -s 0.05 --pid="$p" -f out
if [ -f rc ]; then
  # Framed by their sizes, raw: the job's stderr, then the result on the same call (no second round trip).
  n=0; [ -f err ] && n=$(($(wc -c < err)))
  echo "${jobSays.err} $n" >&2; [ "$n" -gt 0 ] && head -c "$n" err >&2
  if [ -f result.bundle ]; then n=$(($(wc -c < result.bundle))); echo "${jobSays.bundle} $n" >&2; head -c "$n" result.bundle >&2; fi
  read -r r < rc
  echo "${jobSays.rc} $r" >&2
else echo "${jobSays.lost}" >&2; fi
`

/** `$1` dir, `$2` key: the result bundle on stdout (nothing when the job made no commit). */
export const resultScript = `
d=$1; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
j=$d/jobs/$2
[ -f "$j/rc" ] || exit 4
[ -f "$j/result.bundle" ] && cat "$j/result.bundle"
exit 0
`

/**
 * `$1` dir, then keys: end each job's process group if it still runs (SIGTERM, then SIGKILL after 2 s), then
 * remove its folder. The folder is marked `cancelled` first: a removal cut short (a second Ctrl-C ends mdplan
 * at once) leaves a job mdplan ended, not one that died, and the next run takes it for an interrupted attempt;
 * or no folder at all (the next run submits the key anew).
 */
export const removeScript = `
d=$1; shift; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
for k in "$@"; do
  j=$d/jobs/$k
  [ -d "$j" ] || continue
  if [ -s "$j/pid" ] && [ ! -f "$j/rc" ]; then
    p=$(cat "$j/pid")
    : > "$j/cancelled"
    kill -TERM -"$p" 2>/dev/null
    i=0; while kill -0 -"$p" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
    kill -KILL -"$p" 2>/dev/null
  fi
  # Renamed out of jobs/ first: a removal cut short never leaves a folder that lacks its pid or its mark.
  mv "$j" "$d/staging/$k.gone" 2>/dev/null
  rm -rf "$j" "$d/staging/$k".*
done
`

/** `$1` dir, `$2` key prefix: the keys of the jobs there. */
export const listScript = `
d=$1; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
[ -d "$d/jobs" ] || exit 0
cd "$d/jobs" && for k in "$2"*; do [ -d "$k" ] && echo "$k"; done
exit 0
`
