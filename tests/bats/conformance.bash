# shellcheck shell=bash
# Runs one case of tests/conformance on one implementation, named by a mapping file
# (tests/conformance/impl/<impl>.map; README "The runner contract"). Twin of
# tests/python/conformance.py: the same mappings, escapes, sandbox and comparisons.
#
#   CONFORMANCE_IMPL    an impl name (bash, python) or the path of a .map (default bash)
#   CONFORMANCE_PATH    the PATH the implementation runs with (default: the runner's)
#   CONFORMANCE_PYTHON  what {PYTHON} stands for (default python3)
#
# A case costs about ten processes here: `make test` runs this 1400 times.

CONFORMANCE_REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
CONFORMANCE_CORPUS=$CONFORMANCE_REPO/tests/conformance
case ${CONFORMANCE_IMPL:=bash} in
  *.map) CONFORMANCE_MAP=$CONFORMANCE_IMPL ;;
  *) CONFORMANCE_MAP=$CONFORMANCE_CORPUS/impl/$CONFORMANCE_IMPL.map ;;
esac
CONFORMANCE_IMPL_NAME=${CONFORMANCE_MAP##*/}
CONFORMANCE_IMPL_NAME=${CONFORMANCE_IMPL_NAME%.map}

# conformance_lines <file>: FILE_LINES=(the file's lines), split at \n only, a last line
# without \n included, none for a missing file (as the Python runner's _lines).
conformance_lines() {
  local line
  FILE_LINES=()
  [ -f "$1" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do FILE_LINES+=("$line"); done <"$1"
}

# conformance_one_line <file> <out-var>: a one-line entry (cwd, umask, stdin-from,
# expect/exit), blanks around it dropped.
conformance_one_line() {
  local line=
  IFS=$' \t' read -r line <"$1" || :
  printf -v "$2" '%s' "$line"
}

# conformance_unescape <text> <out-var>: \\ \n \r \t \xHH (two hex digits); any other
# backslash stands for itself. Not printf %b, which knows more escapes than the contract.
conformance_unescape() {
  local rest=$1 out='' byte
  while [[ $rest == *\\* ]]; do
    out+=${rest%%\\*}
    rest=${rest#*\\}
    case $rest in
      \\*) out+=\\ rest=${rest:1} ;;
      n*) out+=$'\n' rest=${rest:1} ;;
      r*) out+=$'\r' rest=${rest:1} ;;
      t*) out+=$'\t' rest=${rest:1} ;;
      x[0-9a-fA-F][0-9a-fA-F]*)
        printf -v byte '%b' "\\x${rest:1:2}"
        out+=$byte rest=${rest:3}
        ;;
      *) out+=\\ ;;
    esac
  done
  printf -v "$2" '%s' "$out$rest"
}

# conformance_decode <text> <case> <sandbox> <out-var>: placeholders, then escapes.
conformance_decode() {
  local text=$1
  text=${text//\{ROOT\}/$3/ws}
  text=${text//\{SANDBOX\}/$3}
  text=${text//\{CASE\}/$2}
  conformance_unescape "$text" "$4"
}

# conformance_pieces <file>: PIECES=(the file's bytes cut at each NUL), since a shell
# variable cannot hold a NUL: equal pieces are equal bytes. A missing file is empty.
conformance_pieces() {
  local piece=
  PIECES=()
  if [ -f "$1" ]; then
    while IFS= read -r -d '' piece; do PIECES+=("$piece"); done <"$1"
  fi
  PIECES+=("$piece")
}

# conformance_same_as <file> <pieces...>: 0 when the file holds exactly these bytes.
conformance_same_as() {
  conformance_pieces "$1"
  shift
  [ "${#PIECES[@]}" -eq "$#" ] || return 1
  local piece
  for piece in "${PIECES[@]}"; do
    [ "$piece" = "$1" ] || return 1
    shift
  done
}

# conformance_suite_argv <suite>: ARGV=(the mapping's words for the suite's logical
# command); an old-form SUITE's bash= path stands in for a bash mapping without it.
conformance_suite_argv() {
  local line command='' legacy='' template='' word
  local -a words=()
  conformance_lines "$CONFORMANCE_CORPUS/suites/$1/SUITE"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    case $line in
      command=*) command=${line#*=} ;;
      python=*) [ -n "$command" ] || command=${line#*=} ;;
      bash=*) legacy='{REPO}'/${line#*=} ;;
    esac
  done
  conformance_lines "$CONFORMANCE_MAP"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    [ "${line%%=*}" = "$command" ] && template=${line#*=}
  done
  if [ -z "$template" ] && [ "$CONFORMANCE_IMPL_NAME" = bash ]; then template=$legacy; fi
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    [ -z "$template" ] && [ "${line%%=*}" = "*" ] && template=${line#*=}
  done
  if [ -z "$template" ]; then
    echo "$CONFORMANCE_MAP: no command for '$command'"
    return 1
  fi
  read -r -a words <<<"$template"
  if [[ $template == *'{ENTRY}'* ]]; then conformance_entry_point "$command" || return 1; fi
  ARGV=()
  for word in "${words[@]}"; do
    word=${word//\{ENTRY\}/$ENTRY}
    word=${word//\{REPO\}/$CONFORMANCE_REPO}
    word=${word//\{PYTHON\}/${CONFORMANCE_PYTHON:-python3}}
    ARGV+=("${word//\{COMMAND\}/$command}")
  done
}

# conformance_entry_point <command>: ENTRY=the command's entry point in the command
# map (scripts/lib/text/commands.txt, docs/commands.md), which {ENTRY} stands for.
conformance_entry_point() {
  local line name entry
  conformance_lines "$CONFORMANCE_REPO/scripts/lib/text/commands.txt"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    [ "${line#\#}" = "$line" ] || continue
    IFS=$'| \t' read -r name entry _ <<<"$line"
    if [ "$name" = "$1" ] && [ -n "$entry" ] && [ "$entry" != - ]; then
      ENTRY=$entry
      return 0
    fi
  done
  echo "commands.txt: no entry point for '$1'"
  return 1
}

# conformance_tree <sandbox> <case>: prints the expect/tree manifest of the sandbox
# (every entry but in/ and the subtrees the case's `ignore` names, in byte order) and
# sets FILES=(its regular files). One find, one sort and one ls.
conformance_tree() {
  local sandbox=$1 line path rel mode target i=0
  local -a prune=(-path "$sandbox/in") paths=()
  conformance_lines "$2/ignore"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    line=${line%/}
    [ -n "$line" ] && prune+=(-o -path "$sandbox/$line")
  done
  while IFS= read -r path; do paths+=("$path"); done < <(
    find "$sandbox" \( "${prune[@]}" \) -prune -o ! -path "$sandbox" -print | LC_ALL=C sort
  )
  FILES=()
  [ "${#paths[@]}" -gt 0 ] || return 0
  # ls sorts its operands in the same byte order: its n-th line is about the n-th path.
  while IFS= read -r line; do
    path=${paths[i]} i=$((i + 1))
    rel=${path#"$sandbox"/} mode=${line:0:10}
    case $mode in
      l*)
        target=${line#*"$path -> "}
        printf '%s %s -> %s\n' "$mode" "$rel" "${target//$sandbox/\{SANDBOX\}}"
        ;;
      -*)
        printf '%s %s\n' "$mode" "$rel"
        FILES+=("$rel")
        ;;
      *) printf '%s %s\n' "$mode" "$rel" ;;
    esac
  done < <(LC_ALL=C QUOTING_STYLE=literal ls -ld -- "${paths[@]}")
  [ "$i" -eq "${#paths[@]}" ] || echo "conformance: ls listed $i of ${#paths[@]} entries"
}

# conformance_case <suite> <case-name>: 0 when the implementation meets the case.
conformance_case() {
  local suite=$1 name=$2 case sandbox tmp status=0 line value cwd mask stdin entry
  local -a args=() envs=() saved=()
  case=$CONFORMANCE_CORPUS/suites/$suite/$name
  conformance_suite_argv "$suite" || return 1
  tmp=$(cd "$BATS_TEST_TMPDIR" && pwd -P)
  sandbox=$tmp/sandbox
  umask 022
  mkdir "$sandbox" "$sandbox/ws" "$sandbox/in" "$sandbox/home" "$tmp/before"
  if [ -d "$case/root" ]; then cp -PpR "$case/root/." "$sandbox/ws/"; fi
  if [ -f "$case/setup" ]; then
    (cd "$sandbox" && CASE=$case SANDBOX=$sandbox ROOT=$sandbox/ws bash "$case/setup" </dev/null) || {
      echo "setup failed"
      return 1
    }
  fi
  # What the files held before the run: a copy of the sandbox but in/ (scratch, maybe huge).
  for entry in "$sandbox"/* "$sandbox"/.*; do
    case ${entry##*/} in . | .. | in) ;; *) [ -e "$entry" ] || [ -L "$entry" ] && saved+=("$entry") ;; esac
  done
  cp -PpR "${saved[@]}" "$tmp/before/" 2>/dev/null || :

  conformance_lines "$case/args"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    conformance_decode "$line" "$case" "$sandbox" value
    args+=("$value")
  done
  conformance_lines "$case/env"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    [ -n "$line" ] || continue
    conformance_decode "${line#*=}" "$case" "$sandbox" value
    envs+=("${line%%=*}=$value")
  done
  cwd=$sandbox/ws
  if [ -f "$case/cwd" ]; then conformance_one_line "$case/cwd" cwd && cwd=$sandbox/$cwd; fi
  mask=022
  if [ -f "$case/umask" ]; then conformance_one_line "$case/umask" mask; fi
  stdin=/dev/null
  if [ -f "$case/stdin" ]; then stdin=$case/stdin; fi
  if [ -f "$case/stdin-from" ]; then
    conformance_one_line "$case/stdin-from" stdin && stdin=$sandbox/$stdin
  fi
  (
    cd "$cwd" && umask "$mask" &&
      exec env -i PATH="${CONFORMANCE_PATH:-$PATH}" HOME="$sandbox/home" LC_ALL=C.UTF-8 TZ=UTC \
        ${envs[@]+"${envs[@]}"} "${ARGV[@]}" ${args[@]+"${args[@]}"} \
        <"$stdin" >"$tmp/stdout" 2>"$tmp/stderr"
  ) || status=$?

  conformance_compare "$case" "$sandbox" "$status" "$tmp"
}

# conformance_expected <case> <entry> <out-var>: the path of expect/<entry>, or of
# expect/<entry>.<impl> where the case has one for this implementation (exit, stdout
# and stderr only; README "Where an implementation differs on purpose").
conformance_expected() {
  local expected=$1/expect/$2
  if [ -f "$expected.$CONFORMANCE_IMPL_NAME" ]; then expected=$expected.$CONFORMANCE_IMPL_NAME; fi
  printf -v "$3" '%s' "$expected"
}

# conformance_compare <case> <sandbox> <exit> <tmp>: reports every mismatch.
conformance_compare() {
  local case=$1 sandbox=$2 got=$3 tmp=$4 want stream failed=0 rel path LC_ALL=C
  local -a seen=()
  conformance_expected "$case" exit path
  conformance_one_line "$path" want
  if [ "$got" != "$want" ]; then
    echo "exit $got, want $want"
    failed=1
  fi
  for stream in stdout stderr; do
    conformance_pieces "$tmp/$stream"
    seen=("${PIECES[@]//$sandbox\/ws/\{ROOT\}}")
    seen=("${seen[@]//$sandbox/\{SANDBOX\}}")
    seen=("${seen[@]//$case/\{CASE\}}")
    conformance_expected "$case" "$stream" path
    if ! conformance_same_as "$path" "${seen[@]}"; then
      printf '%s differs; got (a NUL shown as \\0):\n' "$stream"
      printf '%s' "${seen[0]}"
      if [ "${#seen[@]}" -gt 1 ]; then printf '\\0%s' "${seen[@]:1}"; fi
      failed=1
    fi
  done
  conformance_tree "$sandbox" "$case" >"$tmp/tree.seen"
  if ! cmp -s "$tmp/tree.seen" "$case/expect/tree"; then
    echo "tree differs:"
    diff "$tmp/tree.seen" "$case/expect/tree"
    failed=1
  fi
  if [ -d "$case/expect/files" ]; then
    while IFS= read -r rel; do
      rel=${rel#"$case/expect/files/"}
      if ! cmp -s "$sandbox/$rel" "$case/expect/files/$rel"; then
        echo "$rel: bytes differ from expect/files/$rel"
        failed=1
      fi
    done < <(find "$case/expect/files" -type f -o -type l) # a link: a file under fixtures/
  fi
  for rel in ${FILES[@]+"${FILES[@]}"}; do
    [ -f "$case/expect/files/$rel" ] && continue
    if [ ! -f "$tmp/before/$rel" ] || [ -L "$tmp/before/$rel" ]; then
      echo "$rel: new file not named in expect/files"
      failed=1
    elif ! cmp -s "$sandbox/$rel" "$tmp/before/$rel"; then
      echo "$rel: changed by the run"
      failed=1
    fi
  done
  chmod -R u+rwx "$sandbox" "$tmp/before" 2>/dev/null
  return "$failed"
}

# conformance_known_failure <suite/case>: listed for this implementation in known-failures.txt.
conformance_known_failure() {
  local line
  conformance_lines "$CONFORMANCE_CORPUS/known-failures.txt"
  for line in ${FILE_LINES[@]+"${FILE_LINES[@]}"}; do
    [ "$line" = "$CONFORMANCE_IMPL_NAME $1" ] && return 0
  done
  return 1
}
