# shellcheck shell=bash
# Runs one case of tests/conformance against the bash entry point of its suite
# (format: tests/conformance/README.md). Twin of tests/python/conformance.py.

CONFORMANCE_REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
CONFORMANCE_CORPUS=$CONFORMANCE_REPO/tests/conformance

# conformance_decode <text> <case> <sandbox> <out-var>: placeholders, then escapes.
conformance_decode() {
  local text=$1
  text=${text//\{ROOT\}/$3/ws}
  text=${text//\{SANDBOX\}/$3}
  text=${text//\{CASE\}/$2}
  printf -v "$4" '%b' "$text"
}

# conformance_slurp <file> <out-var>: the bytes of a text file, trailing newlines kept.
conformance_slurp() {
  local slurped
  slurped=$(cat -- "$1" 2>/dev/null; printf x)
  printf -v "$2" '%s' "${slurped%x}"
}

# conformance_find <sandbox> <case> [find tests...]: entries below the sandbox
# except in/ and the subtrees the case's `ignore` file names.
conformance_find() {
  local sandbox=$1 case=$2 line
  local -a prune=(-path "$sandbox/in")
  shift 2
  if [ -f "$case/ignore" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      line=${line%/}
      [ -n "$line" ] && prune+=(-o -path "$sandbox/$line")
    done <"$case/ignore"
  fi
  find "$sandbox" \( "${prune[@]}" \) -prune -o "$@" -print
}

# conformance_tree <sandbox> <case>: the expect/tree manifest of the sandbox.
conformance_tree() {
  local sandbox=$1 path rel mode target line
  conformance_find "$sandbox" "$2" | while IFS= read -r path; do
    [ "$path" = "$sandbox" ] && continue
    rel=${path#"$sandbox"/}
    line=$(ls -ld -- "$path")
    mode=${line:0:10}
    if [ -L "$path" ]; then
      target=$(readlink -- "$path")
      printf '%s\t%s %s -> %s\n' "$rel" "$mode" "$rel" "${target//$sandbox/\{SANDBOX\}}"
    else
      printf '%s\t%s %s\n' "$rel" "$mode" "$rel"
    fi
  done | LC_ALL=C sort | cut -f2-
}

# conformance_files <sandbox> <case>: relative paths of the regular files (ignored subtrees aside).
conformance_files() {
  local sandbox=$1
  conformance_find "$sandbox" "$2" -type f | while IFS= read -r path; do
    printf '%s\n' "${path#"$sandbox"/}"
  done
}

# conformance_case <suite> <case-name>: 0 when the bash implementation meets the case.
conformance_case() {
  local suite=$1 name=$2 case entry sandbox backup status=0 line value cwd mask stdin
  local -a args=() envs=()
  case=$CONFORMANCE_CORPUS/suites/$suite/$name
  entry=$CONFORMANCE_REPO/$(sed -n 's/^bash=//p' "$CONFORMANCE_CORPUS/suites/$suite/SUITE")
  sandbox=$(cd "$(mktemp -d "$BATS_TEST_TMPDIR/sandbox.XXXXXX")" && pwd -P)
  backup=$BATS_TEST_TMPDIR/before.$name
  umask 022
  chmod 755 "$sandbox"
  mkdir "$sandbox/ws" "$sandbox/in" "$sandbox/home"
  if [ -d "$case/root" ]; then cp -PpR "$case/root/." "$sandbox/ws/"; fi
  if [ -f "$case/setup" ]; then
    (cd "$sandbox" && CASE=$case SANDBOX=$sandbox ROOT=$sandbox/ws bash "$case/setup" </dev/null) || {
      echo "setup failed"
      return 1
    }
  fi
  mkdir -p "$backup"
  conformance_files "$sandbox" "$case" | while IFS= read -r line; do
    mkdir -p "$backup/$(dirname -- "$line")"
    cp -p -- "$sandbox/$line" "$backup/$line" 2>/dev/null || :
  done

  while IFS= read -r line || [ -n "$line" ]; do
    conformance_decode "$line" "$case" "$sandbox" value
    args+=("$value")
  done <"$case/args"
  if [ -f "$case/env" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      [ -n "$line" ] || continue
      conformance_decode "$line" "$case" "$sandbox" value
      envs+=("$value")
    done <"$case/env"
  fi
  cwd=$sandbox/ws
  [ -f "$case/cwd" ] && cwd=$sandbox/$(cat "$case/cwd")
  mask=022
  [ -f "$case/umask" ] && mask=$(cat "$case/umask")

  stdin=/dev/null
  [ -f "$case/stdin" ] && stdin=$case/stdin
  [ -f "$case/stdin-from" ] && stdin=$sandbox/$(cat "$case/stdin-from")
  (
    cd "$cwd" && umask "$mask" &&
      exec env -i PATH="${CONFORMANCE_PATH:-$PATH}" HOME="$sandbox/home" LC_ALL=C.UTF-8 TZ=UTC \
        ${envs[@]+"${envs[@]}"} "$entry" ${args[@]+"${args[@]}"} \
        <"$stdin" >"$BATS_TEST_TMPDIR/stdout" 2>"$BATS_TEST_TMPDIR/stderr"
  ) || status=$?

  conformance_compare "$case" "$sandbox" "$backup" "$status"
}

# conformance_compare <case> <sandbox> <backup> <exit>: reports every mismatch.
conformance_compare() {
  local case=$1 sandbox=$2 backup=$3 got=$4 want stream data failed=0 rel
  want=$(cat "$case/expect/exit")
  if [ "$got" != "$want" ]; then
    echo "exit $got, want $want"
    failed=1
  fi
  for stream in stdout stderr; do
    conformance_slurp "$BATS_TEST_TMPDIR/$stream" data
    data=${data//$sandbox\/ws/\{ROOT\}}
    data=${data//$sandbox/\{SANDBOX\}}
    data=${data//$case/\{CASE\}}
    printf '%s' "$data" >"$BATS_TEST_TMPDIR/$stream.seen"
    if [ -f "$case/expect/$stream" ]; then
      cmp -s "$BATS_TEST_TMPDIR/$stream.seen" "$case/expect/$stream"
    else
      [ ! -s "$BATS_TEST_TMPDIR/$stream.seen" ]
    fi || {
      echo "$stream differs; got:"
      cat "$BATS_TEST_TMPDIR/$stream.seen"
      failed=1
    }
  done
  conformance_tree "$sandbox" "$case" >"$BATS_TEST_TMPDIR/tree.seen"
  if ! cmp -s "$BATS_TEST_TMPDIR/tree.seen" "$case/expect/tree"; then
    echo "tree differs:"
    diff "$BATS_TEST_TMPDIR/tree.seen" "$case/expect/tree"
    failed=1
  fi
  if [ -d "$case/expect/files" ]; then
    while IFS= read -r rel; do
      rel=${rel#"$case/expect/files/"}
      if ! cmp -s "$sandbox/$rel" "$case/expect/files/$rel"; then
        echo "$rel: bytes differ from expect/files/$rel"
        failed=1
      fi
    done < <(find "$case/expect/files" -type f)
  fi
  while IFS= read -r rel; do
    [ -f "$case/expect/files/$rel" ] && continue
    if [ ! -f "$backup/$rel" ]; then
      echo "$rel: new file not named in expect/files"
      failed=1
    elif ! cmp -s "$sandbox/$rel" "$backup/$rel"; then
      echo "$rel: changed by the run"
      failed=1
    fi
  done < <(conformance_files "$sandbox" "$case")
  chmod -R u+rwx "$sandbox" 2>/dev/null
  return "$failed"
}

# conformance_known_failure <suite/case>: listed for bash in known-failures.txt.
conformance_known_failure() {
  grep -qx "bash $1" "$CONFORMANCE_CORPUS/known-failures.txt" 2>/dev/null
}
