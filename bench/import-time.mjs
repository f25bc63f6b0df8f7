// S5: `node bench/import-time.mjs <specifier or file URL>` prints how long one fresh `import()` takes, in ms.
const specifier = process.argv[2];
const start = performance.now();
await import(specifier);
process.stdout.write(`${JSON.stringify({ specifier, ms: performance.now() - start })}\n`);
