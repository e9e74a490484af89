# shellcheck shell=bash
# rows_one_by_one <dir>: snapshot-list's rows made as before the batch
# (snapshot_batch): snapshot_read_file on each file. batch.bats sources this
# after snapshot-lifecycle.sh.
rows_one_by_one() {
  local LC_ALL=C file name task msg status snapshot stage captured_at next rows=''
  for file in "$1"/*.snapshot.md; do
    { [ -e "$file" ] || [ -L "$file" ]; } || continue
    name=${file##*/}
    task=${name%.snapshot.md}
    dr_task_id_ok "$task" || continue
    status=0
    snapshot_read_file "$file" "$task" msg snapshot || status=$?
    if [ "$status" -eq 0 ]; then
      snapshot_field "$snapshot" stage stage
      snapshot_field "$snapshot" captured_at captured_at
      snapshot_field "$snapshot" recommended_next next
      rows=$rows$task$'\t'valid$'\t'$stage$'\t'$captured_at$'\t'$next$'\n'
    else
      rows=$rows$task$'\t'${msg//$'\t'/?}$'\t\t\t\n'
    fi
  done
  printf '%s' "$rows"
}
