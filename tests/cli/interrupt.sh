# Sourced by the signal tests (signal_sweep.sh, signal_plan.sh, signal_run.sh): the interrupt loop they share.
#
# interrupt_after FILE LINES SIGNAL COMMAND...
#   Runs COMMAND in the background with SIGINT and SIGTERM at their default action (a shell starts
#   background jobs with SIGINT ignored), waits until FILE holds at least LINES lines (for at most 60 s),
#   sends SIGNAL and waits for COMMAND to end. Sets interrupted_status to its exit status and kept_lines to
#   the lines FILE then holds. Redirect the call to silence COMMAND.
interrupt_after() {
  _file=$1
  _lines=$2
  _sig=$3
  shift 3
  _defaults=""
  if env --default-signal=INT true 2>/dev/null; then _defaults="--default-signal=INT,TERM"; fi
  env $_defaults "$@" &
  _pid=$!
  _i=0
  while [ "$(cat "$_file" 2>/dev/null | wc -l)" -lt "$_lines" ] && [ $_i -lt 1200 ]; do
    sleep 0.05
    _i=$((_i + 1))
  done
  kill -s "$_sig" "$_pid" 2>/dev/null || true
  interrupted_status=0
  wait "$_pid" || interrupted_status=$?
  kept_lines=$(cat "$_file" 2>/dev/null | wc -l)
}
