/** The name the wrapper runs under (its `$0`): how `mdplan init --git` knows a driver value is its own. */
export const wrapperName = 'mdplan-merge-driver'

// `$@` is the command that runs mdplan (`"/usr/bin/node" "/x/bin/mdplan.js"`, or `mdplan`). A word
// with a `/` that names no file cannot start: node would exit 1 ("Cannot find module"), which git
// would read as a conflict mdplan wrote, and keep our side alone. Exit 0 and 1 are mdplan's own
// (merged; conflicts written); anything else, 126/127 (cannot execute, not found) included, is a
// driver that did not merge, and git's own three-way text merge writes the markers instead.
const script = [
  'o=$1 a=$2 b=$3 p=$4 s=',
  'shift 4',
  'for f; do case $f in */*) [ -e "$f" ] || s=127;; esac; done',
  'if [ -z "$s" ]; then "$@" merge-driver "$o" "$a" "$b" "$p"; s=$?; [ $s -le 1 ] && exit $s; fi',
  'echo "mdplan merge-driver did not run ($1: exit $s): $p merged as text by git merge-file instead; run mdplan resolve on it, and mdplan init --git to repair the driver" >&2',
  'exec git merge-file -L ours -L base -L theirs "$a" "$o" "$b"'
].join('; ')

/**
 * The `merge.mdplan.driver` value for a command that runs mdplan: a small
 * `sh -c` wrapper (git runs a driver through the shell) that runs
 * `<command> merge-driver %O %A %B %P`, and when mdplan cannot start (not on
 * PATH, a stale node or mdplan path) falls back to `git merge-file`, so a
 * merge never keeps our side alone. Pure.
 */
export function driverCommand(command: string): string {
  return `sh -c '${script}' ${wrapperName} %O %A %B %P ${command}`
}
