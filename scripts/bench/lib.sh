# Shared by the bench scripts (source it): GNU time, and one timed run appended to a TSV.
#
#   ensure_gnu_time
#   measure_run TSV LABEL RUN -- CMD...
#       runs CMD with /usr/bin/time -v (stdout to /dev/null, stderr kept in $TSV.LABEL.log for
#       the first run), prints `uptime` before and the result after, and appends
#       `label command run secs cpu_secs rss_kb load1 rc` to TSV (write the header yourself:
#       printf 'label\tcommand\trun\tsecs\tcpu_secs\trss_kb\tload1\trc\n' > TSV).

log() { printf '%s\n' "$*" >&2; }

ensure_gnu_time() {
  [ -x /usr/bin/time ] && return
  log "installing GNU time (apt-get install time)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get install -y time >/dev/null || { $sudo apt-get update >/dev/null && $sudo apt-get install -y time >/dev/null; }
}

measure_run() {
  local tsv=$1 label=$2 i=$3; shift 4
  log "[$label, run $i] uptime:$(uptime)"
  local load1 tv se t0 t1 rc=0 secs rss cpu
  load1=$(awk '{print $1}' /proc/loadavg)
  tv=$(mktemp) se=$(mktemp)
  t0=$(date +%s%N)
  /usr/bin/time -v -o "$tv" "$@" > /dev/null 2> "$se" || rc=$?
  t1=$(date +%s%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$tv")
  cpu=$(awk -F': ' '/User time|System time/{s += $2} END{printf "%.2f", s}' "$tv")
  [ "$i" = 1 ] && cp "$se" "$tsv.${label// /_}.log"
  if [ "$rc" != 0 ]; then
    log "   -> FAILED (exit $rc): $(tail -n 3 "$se" | tr '\n' ' ')"
  else
    log "   -> ${secs}s (CPU ${cpu}s), peak RSS $((rss / 1024)) MiB"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$*" "$i" "$secs" "$cpu" "$rss" "$load1" "$rc" >> "$tsv"
  rm -f "$tv" "$se"
}
