#!/usr/bin/env bash
# Opens a kexlab report.html in headless Chromium: dumps the rendered DOM
# and takes a screenshot, and fails when the page does not render its parts
# (figures, tables, the energy line). Installs Chromium with apt-get when it
# is missing (needs root and the network; `go test` never depends on this).
#
# Usage: scripts/check-report.sh [out/report.html] [outdir]
set -euo pipefail
report=${1:-out/report.html}
outdir=${2:-$(dirname "$report")}
[ -f "$report" ] || { echo "check-report: $report not found (run make report first)" >&2; exit 1; }

browser=""
for b in chromium chromium-browser google-chrome headless_shell; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "check-report: installing chromium (apt-get)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  browser=chromium
fi

mkdir -p "$outdir"
url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage)
dom="$outdir/report.dom.html"
"$browser" "${flags[@]}" --dump-dom "$url" >"$dom" 2>/dev/null
"$browser" "${flags[@]}" --window-size=1280,4000 --screenshot="$outdir/report.png" "$url" >/dev/null 2>&1

fail=0
need() {
  if ! grep -q -- "$1" "$dom"; then echo "check-report: rendered page lacks: $1" >&2; fail=1; fi
}
need '<svg'
need 'class="summary"'
need 'class="significance"'
need 'class="outliers"'
need 'energy: '
svgs=$(grep -o '<svg' "$dom" | wc -l)
echo "check-report: $browser rendered $report: $svgs figures; DOM in $dom, screenshot in $outdir/report.png"
exit $fail
