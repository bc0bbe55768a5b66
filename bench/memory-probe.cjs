// Preloaded into the apiary process by bench/memory.ts (node --expose-gc
// --require): it runs in the main thread and in every worker thread (a
// --require preload does; an --import one does not).
// Main thread: on SIGUSR2 a full GC, then process.memoryUsage() and
// v8.getHeapStatistics() written as JSON to $APIARY_MEMORY_PROBE, with the
// same figures from every worker thread (each collects on a message of a
// BroadcastChannel and answers on it: signals reach the main thread only);
// on SIGTTIN a heap snapshot of the main thread into the same file's
// directory (its path written to $APIARY_MEMORY_PROBE.snapshot), and one of
// each worker beside it (paths in `threads`).
'use strict';
const { writeFileSync, renameSync } = require('node:fs');
const v8 = require('node:v8');
const { isMainThread, threadId, BroadcastChannel } = require('node:worker_threads');

const out = process.env.APIARY_MEMORY_PROBE;
/** How long the main thread waits for the workers' answers. */
const WAIT_MS = 3000;

const figures = () => ({ memory: process.memoryUsage(), heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics() });
const collect = () => {
  const before = figures();
  globalThis.gc();
  globalThis.gc();
  return { ...figures(), before };
};

if (out !== undefined && typeof globalThis.gc === 'function') {
  const channel = new BroadcastChannel('apiary-memory-probe');
  channel.unref();
  if (isMainThread) {
    const write = (path, text) => {
      writeFileSync(`${path}.tmp`, text);
      renameSync(`${path}.tmp`, path);
    };
    /** Asks every worker for `what`, gathers answers until WAIT_MS passes with none new. */
    const ask = (what, done) => {
      const answers = [];
      let timer;
      const finish = () => {
        channel.onmessage = null;
        done(answers);
      };
      channel.onmessage = (e) => {
        if (e.data?.answer !== what) return;
        answers.push(e.data);
        clearTimeout(timer);
        timer = setTimeout(finish, 300);
      };
      timer = setTimeout(finish, WAIT_MS);
      channel.postMessage({ ask: what });
    };
    process.on('SIGUSR2', () => {
      const main = collect();
      ask('gc', (threads) => write(out, JSON.stringify({ ...main, threads })));
    });
    process.on('SIGTTIN', () => {
      const file = v8.writeHeapSnapshot(`${out}.${Date.now()}.heapsnapshot`);
      ask('snapshot', (threads) => {
        write(`${out}.threads`, JSON.stringify(threads));
        write(`${out}.snapshot`, file);
      });
    });
  } else {
    channel.onmessage = (e) => {
      if (e.data?.ask === 'gc') channel.postMessage({ answer: 'gc', threadId, ...collect() });
      if (e.data?.ask === 'snapshot') channel.postMessage({ answer: 'snapshot', threadId, file: v8.writeHeapSnapshot(`${out}.${Date.now()}-${threadId}.heapsnapshot`) });
    };
  }
}
