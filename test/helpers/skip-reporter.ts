// A node:test reporter that writes one JSON line per skipped test (its reason, its file), for the summary
// test/run-suite.ts prints at the end of `npm test`. Node's own reporter still writes everything else.

interface TestEvent {
  type: string;
  data: { name?: string; file?: string; skip?: string | boolean };
}

async function* skipReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:pass' || event.data.skip === undefined || event.data.skip === false) continue;
    const reason = event.data.skip === true ? '(no reason given)' : String(event.data.skip);
    yield `${JSON.stringify({ reason, name: event.data.name, file: event.data.file })}\n`;
  }
}

// node:test loads a reporter by its default export; compiled to CommonJS that is module.exports itself.
export = skipReporter;
