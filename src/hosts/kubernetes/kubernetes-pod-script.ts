import {collectScript} from '../job-scripts.js'

/**
 * What the Job's container runs (`sh -c`): constant text, never built from
 * a plan. The job's archive (job-archive.ts: the base bundle, argv, stdin,
 * the commit message with the key) is mounted from a ConfigMap at
 * `$MDPLAN_IN/job.tar`; credentials arrive as environment from Secrets
 * (`envFrom`). The agent's stdout is the container's stdout, so the pod's
 * log is its output; its stderr goes to a file. After it, a trailer on
 * stdout starts with the marker (`$1`, drawn per attempt): the exit code,
 * then the result bundle in base64. The pod log is how the work comes back:
 * no shared volume and no inbound connection needed.
 */
export const podScript = `
m=$1
j=\${TMPDIR:-/tmp}/mdplan-job
rm -rf "$j" && mkdir -p "$j" && tar -x -f "\${MDPLAN_IN:-/mdplan/in}/job.tar" -C "$j" || { echo "mdplan: could not unpack the job" >&2; exit 125; }
MDPLAN_JOB=$j; export MDPLAN_JOB
{ read -r base; read -r ref; read -r branch; read -r prefix; read -r name; read -r email; read -r key; } < "$j/job"
# A pod's file system goes with it: no earlier job's clone to go on in, always a clone of its own.
wk=$j/work
echo 125 > "$j/agent.rc"
work() {
  git init -q "$wk" && cd "$wk" &&
    git fetch -q "$j/base.bundle" "$ref:refs/heads/$branch" &&
    git checkout -q "$branch" || { echo "mdplan: could not check out the base commit" >&2; return; }
  cd "$wk/$prefix" || return
  if [ -f "$j/input" ]; then in=$j/input; else in=/dev/null; fi
  xargs -0 -x sh -c 'in=$1; shift; "$@" < "$in"; echo $? > "$MDPLAN_JOB/agent.rc"' mdplan-agent "$in" < "$j/argv"
}
work 2> "$j/err"
${collectScript}
rc=$(cat "$j/agent.rc")
[ "$rc" = 0 ] && [ "$collected" = 1 ] && rc=125
printf '\\n%s rc %s\\n' "$m" "$rc"
if [ -f "$j/result.bundle" ]; then base64 < "$j/result.bundle"; fi
printf '%s end\\n' "$m"
cat "$j/err" >&2
exit 0
`
