// The exports open in their tools' terms: `kinetoscope export speedscope` validates against the file-format schema
// shipped in the speedscope package (the one speedscope.app reads), on a hand-made trace and on corpus traces.
// (pprof is read by `go tool pprof` in tests/profile.rs; the page's export buttons in flame.test.js.)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Ajv from 'ajv';
import { cliRun, corpusTest, repoRoot, shared } from './harness.js';

const require = createRequire(import.meta.url);
const schema = require('speedscope/dist/release/file-format-schema.json');
const validate = new Ajv({ strict: false }).compile(schema);

/** `kinetoscope export speedscope TRACE --gpu`, parsed, after checking it against the schema. */
function speedscopeOf(trace) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kinetoscope-speedscope-'));
  try {
    const out = path.join(dir, 'p.speedscope.json');
    const r = cliRun(repoRoot, ['export', 'speedscope', trace, '-o', out, '--gpu']);
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    assert.ok(validate(json), `${trace}: ${JSON.stringify(validate.errors)?.slice(0, 400)}`);
    return json;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('speedscope export follows speedscope\'s file-format schema (hand-made trace)', () => {
  const json = speedscopeOf(path.join(repoRoot, 'testdata', 'profile', 'nesting.json'));
  assert.deepEqual(json.profiles.map((p) => p.type), ['evented', 'evented', 'sampled']);
});

corpusTest('speedscope export follows the schema on corpus traces', () => {
  for (const t of ['param/linear_kineto.json.gz', 'hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz']) {
    const json = speedscopeOf(path.join(shared, 'traces', t));
    assert.ok(json.profiles.length >= 2, `${t}: profiles`);
  }
});
