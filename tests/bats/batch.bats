#!/usr/bin/env bats
# snapshot_batch (snapshot-list and doctor judge every snapshot in one awk
# process) gives each file the verdict snapshot_read_file gives it alone.

setup() {
  REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
}

@test "every snapshot of the check corpus gets the same verdict in a batch as alone" {
  run bash -c ". '$REPO/scripts/lib/snapshot-lifecycle.sh'
    . '$BATS_TEST_DIRNAME/one-by-one.bash'
    n=0
    for dir in '$REPO'/tests/conformance/suites/*/*/root/datarim/snapshots; do
      [ -d \"\$dir\" ] && [ ! -L \"\$dir\" ] || continue
      want=\$(rows_one_by_one \"\$dir\"; printf .)
      snapshot_batch list \"\$dir\" got || { echo \"batch failed: \$dir\"; exit 1; }
      [ \"\$got.\" = \"\$want\" ] || { echo \"differs: \$dir\"; diff <(printf '%s' \"\$want\") <(printf '%s' \"\$got\"); exit 1; }
      n=\$((n + 1))
    done
    echo \"\$n folders\""
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${output% folders}" -gt 100 ]
}

@test "a batch of odd files: NUL, over the cap, empty, a link, a folder, names no task has" {
  dir=$BATS_TEST_TMPDIR/ws/datarim/snapshots
  mkdir -p "$dir/DIR-0001.snapshot.md"
  printf -- '---\ntask_id: NUL-0001\n\0rest' >"$dir/NUL-0001.snapshot.md"
  head -c 9000 /dev/zero | tr '\0' 'a' >"$dir/BIG-0001.snapshot.md"
  head -c 8193 /dev/zero | tr '\0' 'a' >"$dir/BIG-0002.snapshot.md"
  : >"$dir/EMPTY-0001.snapshot.md"
  printf -- '---\nno end' >"$dir/NOLF-0001.snapshot.md"
  printf '\n\n\n' >"$dir/LF-0001.snapshot.md"
  ln -s NUL-0001.snapshot.md "$dir/LINK-0001.snapshot.md"
  ln -s nowhere "$dir/DANGLING-0001.snapshot.md"
  : >"$dir/lower-0001.snapshot.md"
  : >"$dir/$(printf 'TAB\t-0001').snapshot.md"
  : >"$dir/$(printf 'LF\n-0001').snapshot.md"
  : >"$dir/SHORT-01.snapshot.md"
  run bash -c ". '$REPO/scripts/lib/snapshot-lifecycle.sh'
    . '$BATS_TEST_DIRNAME/one-by-one.bash'
    want=\$(rows_one_by_one '$dir'; printf .)
    snapshot_batch list '$dir' got || exit 1
    [ \"\$got.\" = \"\$want\" ] || { diff <(printf '%s' \"\$want\") <(printf '%s' \"\$got\"); exit 1; }
    printf '%s' \"\$got\""
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(printf '%s\n' "$output" | grep -c .)" -eq 9 ]
}
