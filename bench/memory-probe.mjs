// Preloaded into the apiary process by bench/memory.ts (node --expose-gc --import):
// on SIGUSR2 a full GC, then process.memoryUsage() and v8.getHeapStatistics()
// written as JSON to $APIARY_MEMORY_PROBE; on SIGTTIN a heap snapshot into the
// same file's directory (its path written to $APIARY_MEMORY_PROBE.snapshot).
import { writeFileSync, renameSync } from 'node:fs';
import v8 from 'node:v8';

const out = process.env.APIARY_MEMORY_PROBE;
if (out !== undefined && typeof globalThis.gc === 'function') {
  const write = (path, text) => {
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
  };
  process.on('SIGUSR2', () => {
    const before = { memory: process.memoryUsage(), heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics() };
    globalThis.gc();
    globalThis.gc();
    write(out, JSON.stringify({ memory: process.memoryUsage(), heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics(), before }));
  });
  process.on('SIGTTIN', () => {
    const file = v8.writeHeapSnapshot(`${out}.${Date.now()}.heapsnapshot`);
    write(`${out}.snapshot`, file);
  });
}
