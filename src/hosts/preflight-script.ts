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
