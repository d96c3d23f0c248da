#!/usr/bin/env bash
# Builds the web page into dist/ (git-ignored; sources stay in www/):
#   dist/index.html + style.css + www/*.js (but single-file.js) + pkg/ + sample/   for any static server (GitHub Pages)
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
# every module of the page (app.js and its imports) and of the worker (worker.js and its imports); single-file.js
# is only for dist/kinetoscope.html (the inliner below fails on a module neither app.js nor worker.js imports)
cp www/index.html www/style.css dist/
for js in www/*.js; do [ "$js" = www/single-file.js ] || cp "$js" dist/; done
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
import base64, glob, html, os, re, sys
glue_path, wasm_path, sample_path = sys.argv[1:4]
read = lambda p: open(p, encoding="utf-8").read()
b64 = lambda p: base64.b64encode(open(p, "rb").read()).decode("ascii")
fail = lambda msg: sys.exit(f"build.sh: {msg}")

def script(body, **attrs):
    if "</script" in body.lower():
        fail("inlined text contains '</script' and would end its element early")
    a = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f"<script{a}>\n{body}\n</script>"

# The one import form of our modules, one line each: `import { a, b } from './m.js';` (m.js in www/)
IMPORT = re.compile(r"^import \{([^}\n]*)\} from '\./([\w-]+\.js)';.*$", re.M)
# and what they export: `export [async] function[*] NAME`, `export class NAME`, `export const NAME =`
EXPORT = re.compile(r"^export (?:async )?(?:function\*?|class|const) ([\w$]+)", re.M)
# the worker's wasm import: in the single-file build the no-modules glue (prepended to the worker) defines wasm_bindgen
WASM_IMPORT = "import init, * as wasm from './pkg/kinetoscope.js';"
WASM_GLUE = "const init = wasm_bindgen, wasm = wasm_bindgen; // glue prepended (single-file build)"

def inline_modules(entry, worker=False):
    """www/ENTRY with the modules it imports, and theirs, inlined: each module once, before the modules that import
    it (the order the browser runs them in), run in its own scope (an arrow function) that returns what others
    import from it, as a const; each import line becomes `const { a, b } = that const;`. For the worker (a classic
    script), the wasm import line of each module becomes WASM_GLUE. Anything else fails the build: another import
    form, an export other than function/class/const (an exported `let` would not stay live), a name the module does
    not export, an import cycle. Returns (text, the modules inlined)."""
    order, wanted, path = [], {}, []
    def visit(module):
        if module in order:
            return
        if module in path:
            fail(f"import cycle: {' -> '.join(path[path.index(module):] + [module])}")
        if not os.path.isfile(f"www/{module}"):
            fail(f"www/{path[-1]} imports ./{module}, which is not in www/")
        path.append(module)
        for m in IMPORT.finditer(read(f"www/{module}")):
            names = [n.strip() for n in m.group(1).split(",") if n.strip()]
            if not names or not all(re.fullmatch(r"[\w$]+", n) for n in names):
                fail(f"www/{module}: only `import {{ a, b }} from './m.js';` can be inlined, not: {m.group(0)}")
            wanted.setdefault(m.group(2), [])
            wanted[m.group(2)] += [n for n in names if n not in wanted[m.group(2)]]
            visit(m.group(2))
        path.pop()
        order.append(module)
    visit(entry)

    scope = lambda module: "__www_" + re.sub(r"\W", "_", module)
    def body(module):
        src = read(f"www/{module}")
        if worker:
            src = re.sub(rf"^{re.escape(WASM_IMPORT)}.*$", WASM_GLUE, src, flags=re.M)
            if "import.meta" in src:
                fail(f"www/{module}: import.meta does not exist in the single-file build's (classic) worker")
        src = IMPORT.sub(lambda m: f"const {{ {m.group(1).strip()} }} = {scope(m.group(2))}; // www/{m.group(2)}, inlined above", src)
        if module != entry:
            exported = EXPORT.findall(src)
            missing = [n for n in wanted[module] if n not in exported]
            if missing:
                fail(f"www/{module} does not export {', '.join(missing)} (or not as export function/class/const NAME)")
            src = re.sub(r"^export (?=(?:async )?(?:function\*?|class|const) )", "", src, flags=re.M)
        left = re.search(r"^[ \t]*(?:import(?![ \t]*[(.])\b|export\b).*$", src, flags=re.M)
        if left:
            fail(f"www/{module}: cannot inline this line: {left.group(0)}")
        return src
    parts = [f"const {scope(m)} = (() => {{ // www/{m}\n{body(m)}\nreturn {{ {', '.join(wanted[m])} }};\n}})();"
             for m in order[:-1]]
    return "\n".join(parts + [body(entry)]), set(order)

page_js, page_modules = inline_modules("app.js")
worker_js, worker_modules = inline_modules("worker.js", worker=True)
if WASM_GLUE not in worker_js:
    fail(f"www/worker.js must import the wasm with exactly: {WASM_IMPORT}")
unused = sorted(set(os.path.basename(p) for p in glob.glob("www/*.js")) - page_modules - worker_modules - {"single-file.js"})
if unused:
    fail(f"{', '.join('www/' + u for u in unused)}: imported by neither app.js nor worker.js (dist/ would ship it for nothing)")

page = read("www/index.html")
parts = {
    '<link rel="stylesheet" href="style.css">': "<style>\n" + read("www/style.css") + "\n</style>",
    '<script type="module" src="app.js"></script>': "\n".join([
        script(b64(wasm_path), type="application/octet-stream", id="wasm-b64"),
        script(b64(sample_path), type="application/octet-stream", id="sample-b64",
               data_name=os.path.basename(sample_path)),
        script(worker_js, type="text/plain", id="worker-src"),
        script(read(glue_path), id="wasm-glue"),
        script(read("www/single-file.js")),
        script(page_js, type="module"),
    ]),
}
for marker, replacement in parts.items():
    if page.count(marker) != 1:
        sys.exit(f"build.sh: www/index.html must contain exactly once: {marker}")
    page = page.replace(marker, replacement)

# Content-Security-Policy: the inline scripts that run (no type, or type=module; data blocks don't) are
# allowed by their SHA-256 instead of 'self' (a file:// page has no origin to trust)
import hashlib
running = re.findall(r"<script(?![^>]*type=\"(?:application/octet-stream|text/plain)\")[^>]*>(.*?)</script>", page, flags=re.S)
hashes = " ".join("'sha256-%s'" % base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") for body in running)
policy = "script-src 'self' 'wasm-unsafe-eval'"
if page.count(policy) != 1 or len(running) < 3:
    sys.exit(f"build.sh: www/index.html's Content-Security-Policy must contain exactly once: {policy} (and {len(running)} inline scripts run)")
page = page.replace(policy, f"script-src 'wasm-unsafe-eval' {hashes}")
open("dist/kinetoscope.html", "w", encoding="utf-8").write(page)
PY

size() { du -cb "$@" | tail -1 | cut -f1; }
echo "== built in $((SECONDS - t0)) s"
printf '   dist/ (index.html + assets + pkg/): %s bytes (wasm %s)\n' \
  "$(size dist/index.html dist/style.css dist/*.js dist/pkg)" "$(size dist/pkg/kinetoscope_bg.wasm)"
printf '   dist/kinetoscope.html (single file, opens from file://): %s bytes\n' "$(size dist/kinetoscope.html)"

if [ -n "$serve" ]; then
  echo "== serving dist/: open http://localhost:$port/#sample=1  (opens with the bundled sample; single file: http://localhost:$port/kinetoscope.html#sample=1; Ctrl-C stops)"
  cd dist && exec python3 -m http.server "$port" --bind 127.0.0.1
fi
