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
 * own. Says `mdplan-job submitted` or `exists` on stderr, then follows the
 * job's output in the same call (one round trip per launch); `need-base`
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
mkdir "$s" && tar -x -f - -C "$s" || { rm -rf "$s"; echo "mdplan-job bad-archive" >&2; exit 3; }
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
      git -C "$c" fetch -q "$s/base.bundle" "+$r:$r" 2> "$s/fetch.err" && echo "mdplan-job new-cache $c.broken.$$" >&2
  }
  rm -f "$s/base.bundle"
fi
if [ ! -f "$c/refs/mdplan/bases/$b" ] && ! { git -C "$c" cat-file -e "$b^{commit}" 2> /dev/null && git -C "$c" update-ref "refs/mdplan/bases/$b" "$b"; }; then
  [ -s "$s/fetch.err" ] && sed 's/^/mdplan-job fetch: /' "$s/fetch.err" >&2
  rm -rf "$s"
  echo "mdplan-job need-base" >&2
  exit 0
fi
echo "$c" > "$s/cache"
if mkdir "$j" 2>/dev/null; then
  mv "$s"/* "$j"/ && rmdir "$s"
  (cd "$j" && setsid sh "$j/run.sh" "$j" < /dev/null > /dev/null 2>&1 &)
  umask 022
  echo "mdplan-job submitted" >&2
else
  rm -rf "$s"
  umask 022
  echo "mdplan-job exists" >&2
fi
`

/**
 * Shell text both job scripts (runScript, the Kubernetes pod's) end with: it
 * turns what the agent left in `$j/work` into one branch grown from the base,
 * bundled as `$j/result.bundle`, and says whether that worked (`collected`
 * 0 or 1). What the agent left uncommitted is committed by it; an agent that
 * committed its own work gets an empty commit on top that carries the
 * attempt's key (the result is fenced by the key of its last commit); an
 * agent that ended on another branch, or on a detached HEAD, has its work
 * where HEAD is. A commit that fails (a broken cache under the alternates, a
 * full disk) is a failure to report, never "the agent changed nothing".
 * Needs `j`, `base`, `branch`, `name`, `email` and `key`.
 */
export const collectScript = `
collect() {
  cd "$j/work" 2>/dev/null || return 0
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
sleep 2147483647 & echo $! > beacon
echo $$ > pid
: > out; : > err
{ read -r base; read -r ref; read -r branch; read -r prefix; read -r name; read -r email; read -r key; } < job
work() {
  if [ -f "$j/cache" ]; then
    read -r cache < "$j/cache"
    git init -q --template= "$j/work" && echo "$cache/objects" > "$j/work/.git/objects/info/alternates" && cd "$j/work" &&
      git checkout -q -b "$branch" "$base"
  else
    git init -q --template= "$j/work" && cd "$j/work" && git fetch -q "$j/base.bundle" "$ref:refs/heads/$branch" && git checkout -q "$branch"
  fi || { echo "mdplan: could not check out the base commit" >&2; echo 125 > "$j/agent.rc"; return; }
  cd "$j/work/$prefix" || { echo 125 > "$j/agent.rc"; return; }
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
read -r beacon < "$j/beacon"; kill "$beacon" 2>/dev/null; wait
`

/**
 * `$1` dir, `$2` key, `$3` byte offset: stdout is the job's output from that
 * byte on, followed until the job ends; the last stderr line says how it
 * ended (`mdplan-job rc N`, `lost` when it died without a result, `unknown`,
 * `cancelled` when mdplan's own cancel ended it and was cut short before it
 * removed the folder), after the result bundle in base64 (`mdplan-job bundle`),
 * when there is one.
 */
export const followScript = `
d=$1; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
cd "$d/jobs/$2" 2>/dev/null || { echo "mdplan-job unknown" >&2; exit 0; }
[ -f cancelled ] && [ ! -f rc ] && { echo "mdplan-job cancelled" >&2; exit 0; }
# A job just submitted writes its pid within milliseconds: look often at first, then every 0.1 s for a minute.
i=0
while [ ! -s pid ]; do i=$((i+1)); [ $i -gt 650 ] && { echo "mdplan-job lost" >&2; exit 0; }; if [ $i -le 50 ]; then sleep 0.01; else sleep 0.1; fi; done
: >> out
# The job's beacon (run.sh) ends, reaped, once the result is ready; jobs from before it had none.
{ read -r p < beacon && [ -n "$p" ]; } 2> /dev/null || read -r p < pid
tail -c +$(($3+1)) -s 0.05 --pid="$p" -f out
if [ -f rc ]; then
  cat err >&2
  # The result rides home on the same call (base64 on stderr, before the last line): no second round trip.
  [ -f result.bundle ] && { echo "mdplan-job bundle" >&2; base64 result.bundle >&2; }
  read -r r < rc
  echo "mdplan-job rc $r" >&2
else echo "mdplan-job lost" >&2; fi
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

/**
 * `$1` dir, `$2` the login checks' limit in seconds, then executables, then
 * `--` and login checks (remote-auth.ts): `cli EXE A B` asks `EXE A B`;
 * `gemini EXE` reads what gemini picks its auth from; `opencode EXE NAMES`
 * looks for an opencode config that configures a provider, else asks `EXE
 * auth list` with NAMES (comma-joined, `-` for none: the variables the host
 * passes by name) set to a stand-in. Says: one `missing NAME` line per
 * executable not found; `disk KB` free in the job folder's file system; per
 * check asked, `auth INDEX RC STDOUT STDERR` (its output in base64), or
 * `authslow INDEX` when it did not answer within the limit (`timeout`'s 124;
 * `missing timeout` when a check is asked and `timeout` is not there); per
 * check read, `fact INDEX …` lines. All in one round trip. Never a value of
 * a variable or a line of a file: only whether they say what is looked for.
 */
export const preflightScript = `
d=$1; l=$2; shift 2; case $d in "~") d=$HOME;; "~/"*) d=$HOME/\${d#"~/"};; esac
mkdir -p "$d/jobs" || echo "unwritable $d"
for x in git tar setsid tail xargs base64; do command -v "$x" > /dev/null 2>&1 || echo "missing $x"; done
while [ $# -gt 0 ] && [ "$1" != -- ]; do command -v "$1" > /dev/null 2>&1 || echo "missing $1"; shift; done
[ $# -gt 0 ] && shift
echo "disk $(df -Pk "$d" 2>/dev/null | awk 'NR==2 {print $4}')"
# The bases the host's cache holds, newest first: a job's bundle need not carry what they hold.
[ -d "$d/cache.git/refs/mdplan/bases" ] && ls -t "$d/cache.git/refs/mdplan/bases" | head -n 64 | sed 's/^/base /'
t=; nt=; command -v timeout > /dev/null 2>&1 && t="timeout $l"
# Ask a CLI ($1 $2 $3, with the names $4 set to a stand-in) within the limit. Without a limit a login check
# that hangs would hold the run: a host that asks one must have timeout.
ask() {
  [ -n "$t" ] || { [ -n "$nt" ] || echo "missing timeout"; nt=1; return 0; }
  command -v "$1" > /dev/null 2>&1 || return 0
  e=$(mktemp) && o=$(standin "$4"; $t "$1" "$2" "$3" < /dev/null 2> "$e"); r=$?
  if [ $r -eq 124 ]; then echo "authslow $i"
  else echo "auth $i $r $(printf %s "$o" | base64 | tr -d '\\n') $(base64 < "$e" | tr -d '\\n')"; fi
  rm -f "$e"
}
standin() { o_ifs=$IFS; IFS=,; for v in $1; do case $v in ''|-|[0-9]*|*[!A-Za-z0-9_]*) ;; *) export "$v=mdplan-preflight";; esac; done; IFS=$o_ifs; }
# The folders above the agents' clones (<dir>/jobs up to /): gemini and opencode look for project files up from where they run.
above() { p=$(cd "$d/jobs" 2>/dev/null && pwd -P) || p=/; while :; do echo "$p"; [ "$p" = / ] && break; p=$(dirname "$p"); done; }
# The auth type a gemini settings file selects (security.auth.selectedType, else the older selectedAuthType).
sel() {
  [ -f "$2" ] || return 0
  s=$(tr -d '\\n\\r' < "$2" | sed -n 's/.*"selectedType"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p')
  [ -n "$s" ] || s=$(tr -d '\\n\\r' < "$2" | sed -n 's/.*"selectedAuthType"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p')
  [ -n "$s" ] && echo "fact $i selected $1 $s"
  return 0
}
# What gemini picks its auth from there (gemini-preflight.ts reads the same here): the variables, the settings files, .env files.
gemini_facts() {
  for v in GEMINI_API_KEY GOOGLE_GENAI_USE_VERTEXAI GOOGLE_GENAI_USE_GCA GOOGLE_GEMINI_BASE_URL GEMINI_CLI_USE_COMPUTE_ADC CLOUD_SHELL GOOGLE_API_KEY GOOGLE_CLOUD_PROJECT GOOGLE_CLOUD_LOCATION; do
    eval "x=\\\${$v-}"
    case $x in '') ;; true|false) echo "fact $i env $v $x";; *) echo "fact $i env $v set";; esac
  done
  sel home "$HOME/.gemini/settings.json"
  sel system "\${GEMINI_CLI_SYSTEM_SETTINGS_PATH:-/etc/gemini-cli/settings.json}"
  [ -n "\${GEMINI_CLI_HOME-}" ] && { sel gemini-home "$GEMINI_CLI_HOME/settings.json"; sel gemini-home "$GEMINI_CLI_HOME/.gemini/settings.json"; }
  g='^[[:space:]]*(export[[:space:]]+)?(GEMINI_API_KEY|GOOGLE_GENAI_USE_VERTEXAI|GOOGLE_GENAI_USE_GCA|GOOGLE_GEMINI_BASE_URL|GEMINI_CLI_USE_COMPUTE_ADC|CLOUD_SHELL|GOOGLE_API_KEY|GOOGLE_CLOUD_PROJECT)[[:space:]]*='
  { above; echo "$HOME"; } | { while IFS= read -r p; do for f in "$p/.gemini/.env" "$p/.env"; do [ -f "$f" ] && grep -Eq "$g" "$f" && exit 0; done; done; exit 1; } && echo "fact $i envfile"
  echo "fact $i read"
}
# Whether an opencode config opencode reads there configures a provider (opencode-preflight.ts reads the same here).
oc_config() {
  q='"provider"[[:space:]]*:'
  printf %s "\${OPENCODE_CONFIG_CONTENT-}" | grep -q "$q" && return 0
  c=\${XDG_CONFIG_HOME:-$HOME/.config}/opencode
  for f in "\${OPENCODE_CONFIG-}" "$c/opencode.json" "$c/opencode.jsonc" "$c/config.json"; do [ -f "$f" ] && grep -q "$q" "$f" && return 0; done
  above | { while IFS= read -r p; do for f in "$p/opencode.json" "$p/opencode.jsonc" "$p/.opencode/opencode.json" "$p/.opencode/opencode.jsonc"; do [ -f "$f" ] && grep -q "$q" "$f" && exit 0; done; done; exit 1; }
}
i=0
while [ $# -gt 0 ]; do
  case $1 in
    cli) ask "$2" "$3" "$4" -; shift 4;;
    gemini) command -v "$2" > /dev/null 2>&1 && gemini_facts; shift 2;;
    opencode) if command -v "$2" > /dev/null 2>&1 && oc_config; then echo "fact $i config"; else ask "$2" auth list "$3"; fi; shift 3;;
    *) shift;;
  esac
  i=$((i+1))
done
exit 0
`
