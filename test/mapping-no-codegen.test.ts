import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

// Object constructors and variable paths are generated as JS source; where the platform forbids generating code
// (`--disallow-code-generation-from-strings`, a hardened deployment's choice) they keep their loops. Every fixture
// must give the interpreter's answer on those loops too.

test('with code generation forbidden, the compiled mappings fall back to their loops and answer every fixture as the interpreter does', () => {
  const dist = path.join(__dirname, '..', 'src', 'mapping');
  const script = `
    const fs = require('node:fs');
    const path = require('node:path');
    const { isDeepStrictEqual } = require('node:util');
    const { objectLiteralConstructor } = require(${JSON.stringify(path.join(dist, 'compiled', 'object-literal'))});
    const { generatedNamePath } = require(${JSON.stringify(path.join(dist, 'compiled', 'name-path'))});
    const { loadMappings } = require(${JSON.stringify(path.join(dist, 'loader'))});
    const { MAPPINGS_DIR } = require(${JSON.stringify(path.join(dist, '..', 'lib', 'paths'))});
    const generated = [objectLiteralConstructor(['a'], [() => 1]), generatedNamePath(() => ({}), ['a'], () => undefined)];
    (async () => {
      let cases = 0;
      const differ = [];
      for (const [gateway, set] of loadMappings()) {
        for (const mapping of set.names()) {
          const dir = path.join(MAPPINGS_DIR, gateway, 'fixtures', mapping);
          for (const file of fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : []) {
            const { input, bindings } = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
            const compiled = await set.evaluateWith('compiled', mapping, structuredClone(input), bindings);
            const interpreted = await set.evaluateWith('interpreter', mapping, structuredClone(input), bindings);
            cases++;
            if (!isDeepStrictEqual(compiled, interpreted)) differ.push(gateway + '/' + mapping + '/' + file);
          }
        }
      }
      console.log(JSON.stringify({ generated: generated.filter((f) => f !== undefined).length, cases, differ }));
    })();
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', script], { encoding: 'utf8' }));
  assert.equal(out.generated, 0, 'no code was generated');
  assert.ok(out.cases > 500, 'the fixtures were found');
  assert.deepEqual(out.differ, []);
});
