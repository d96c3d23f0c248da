#!/usr/bin/env bash
# Builds the web page into dist/ (git-ignored; sources stay in www/):
#   dist/index.html + style.css + app.js + report.js + diff.js + worker.js + pkg/ + sample/   for any static server (GitHub Pages)
#   dist/kinetoscope.html   ONE self-contained file (wasm, glue, worker, sample inlined) that works from file://
#
# usage: www/build.sh [--serve [PORT]]      (run from anywhere; PORT defaults to 8000)
# needs: rustup and python3; the wasm32 target and wasm-bindgen-cli are installed if missing (scripts/setup.sh).
# env:   KINETOSCOPE_SAMPLE   sample trace to bundle (default: HTA's alexnet trace, www/sample/, MIT)
#        CARGO_TARGET_DIR     honoured like cargo does
set -euo pipefail
cd "$(dirname "$0")/.."

serve=""; port=8000
while [ $# -gt 0 ]; do
  case "$1" in
    --serve) serve=1; if [[ "${2:-}" =~ ^[0-9]+$ ]]; then port=$2; shift; fi ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "www/build.sh: unknown argument '$1' (usage: www/build.sh [--serve [PORT]])" >&2; exit 2 ;;
  esac
  shift
done

default_sample=www/sample/benchmark_result_2869224_1695835535_trace.json.gz   # in the repository (www/sample/SOURCE.txt)
sample=${KINETOSCOPE_SAMPLE:-$default_sample}
[ -f "$sample" ] || { echo "www/build.sh: sample trace not found: $sample (set KINETOSCOPE_SAMPLE)" >&2; exit 1; }

# the wasm target and wasm-bindgen-cli (Cargo.lock's version), installed if missing
bash scripts/setup.sh --wasm
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

t0=$SECONDS
echo "== cargo build --lib --target wasm32-unknown-unknown (simd128)"
# WebAssembly SIMD (every browser since 2021-23: Chrome 91, Firefox 89, Safari 16.4): memchr's
# string and byte searches, most of the JSON scanning, use it
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:-} -C target-feature=+simd128" \
  cargo build --release --lib --target wasm32-unknown-unknown
wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/kinetoscope.wasm"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== wasm-bindgen (web -> www/pkg, no-modules -> single file)"
rm -rf www/pkg
wasm-bindgen --target web --no-typescript --out-dir www/pkg "$wasm"
wasm-bindgen --target no-modules --no-typescript --out-dir "$tmp/nomod" "$wasm"

echo "== dist/"
rm -rf dist
mkdir -p dist/sample
cp www/index.html www/style.css www/app.js www/report.js www/diff.js www/worker.js dist/
cp -r www/pkg dist/pkg
name=$(basename "$sample")
install -m 0644 "$sample" "dist/sample/$name"
python3 -c 'import json, sys; print(json.dumps({"files": [sys.argv[1]]}))' "$name" > dist/sample/manifest.json
if [ "$sample" -ef "$default_sample" ]; then
  install -m 0644 www/sample/SOURCE.txt dist/sample/SOURCE.txt
else
  printf '%s\n  source: %s (KINETOSCOPE_SAMPLE; origin and license not recorded by www/build.sh)\n' \
    "$name" "$sample" > dist/sample/SOURCE.txt
fi

echo "== dist/kinetoscope.html (single file)"
python3 - "$tmp/nomod/kinetoscope.js" "$tmp/nomod/kinetoscope_bg.wasm" "dist/sample/$name" <<'PY'
# Inlines style.css, the no-modules glue, the wasm (base64), the worker and the sample (base64) into
# index.html. Each marker line below must occur exactly once; nothing inlined may close its <script>.
import base64, html, os, re, sys
glue_path, wasm_path, sample_path = sys.argv[1:4]
read = lambda p: open(p, encoding="utf-8").read()
b64 = lambda p: base64.b64encode(open(p, "rb").read()).decode("ascii")

worker_import = "import init, * as wasm from './pkg/kinetoscope.js';"
worker = read("www/worker.js")
lines = [l for l in worker.splitlines() if l.startswith(worker_import)]
if len(lines) != 1:
    sys.exit(f"build.sh: www/worker.js must have exactly one line starting with: {worker_import}")
worker = worker.replace(lines[0], "const init = wasm_bindgen, wasm = wasm_bindgen; // glue prepended (single-file build)")

def script(body, **attrs):
    if "</script" in body.lower():
        sys.exit("build.sh: inlined text contains '</script' and would end its element early")
    a = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f"<script{a}>\n{body}\n</script>"

def inline_imports(src):
    """Replaces each `import { a, b } from './m.js';` line by m.js run in its own scope, its
    `export`ed names bound to a and b (our modules are flat: no imports of their own)."""
    def one(m):
        names, module = m.group(1), m.group(2)
        body = re.sub(r"^export ", "", read(f"www/{module}"), flags=re.M)
        if re.search(r"^\s*import\b", body, flags=re.M):
            sys.exit(f"build.sh: www/{module} imports another module; inline_imports does not follow imports")
        names = [n.strip() for n in names.split(",") if n.strip()]
        return f"const {{ {', '.join(names)} }} = (() => {{ // www/{module}\n{body}\nreturn {{ {', '.join(names)} }};\n}})();"
    out, n = re.subn(r"^import \{([^}]*)\} from '\./([\w.-]+\.js)';.*$", one, src, flags=re.M)
    if re.search(r"^import\b", out, flags=re.M):
        sys.exit("build.sh: www/app.js has an import inline_imports cannot inline")
    return out

page = read("www/index.html")
parts = {
    '<link rel="stylesheet" href="style.css">': "<style>\n" + read("www/style.css") + "\n</style>",
    '<script type="module" src="app.js"></script>': "\n".join([
        script(b64(wasm_path), type="application/octet-stream", id="wasm-b64"),
        script(b64(sample_path), type="application/octet-stream", id="sample-b64",
               data_name=os.path.basename(sample_path)),
        script(worker, type="text/plain", id="worker-src"),
        script(read(glue_path), id="wasm-glue"),
        script(read("www/single-file.js")),
        script(inline_imports(read("www/app.js")), type="module"),
    ]),
}
for marker, replacement in parts.items():
    if page.count(marker) != 1:
        sys.exit(f"build.sh: www/index.html must contain exactly once: {marker}")
    page = page.replace(marker, replacement)
open("dist/kinetoscope.html", "w", encoding="utf-8").write(page)
PY

size() { du -cb "$@" | tail -1 | cut -f1; }
echo "== built in $((SECONDS - t0)) s"
printf '   dist/ (index.html + assets + pkg/): %s bytes (wasm %s)\n' \
  "$(size dist/index.html dist/style.css dist/app.js dist/report.js dist/diff.js dist/worker.js dist/pkg)" "$(size dist/pkg/kinetoscope_bg.wasm)"
printf '   dist/kinetoscope.html (single file, opens from file://): %s bytes\n' "$(size dist/kinetoscope.html)"

if [ -n "$serve" ]; then
  echo "== serving dist/: open http://localhost:$port/#sample=1  (opens with the bundled sample; single file: http://localhost:$port/kinetoscope.html#sample=1; Ctrl-C stops)"
  cd dist && exec python3 -m http.server "$port" --bind 127.0.0.1
fi
