// A thread lowers its own priority and no other's (Linux: nice is per thread):
// the body worker does so, so that one tenant's large request yields the cores
// to the event loop and the TLS front that every other request needs.

import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { readdirSync, readFileSync } from 'node:fs';
import { kernelThreadId } from '../../src/server/thread-priority.js';
import { storedValueOffThread } from '../../src/server/body-worker.js';

const linux = process.platform === 'linux';

/** Runs lowerThreadPriority(by) in a new worker thread; answers its kernel id and its nice value after the call. */
async function inWorker(by: number): Promise<{ tid: number; nice: number; lowered: boolean }> {
  const module = JSON.stringify(new URL('../../src/server/thread-priority.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     import(${tsx}).then(({ register }) => { register(); return import(${module}); }).then((m) => {
       const lowered = m.lowerThreadPriority(${by});
       const tid = m.kernelThreadId();
       parentPort.postMessage({ tid, nice: require('node:os').getPriority(tid), lowered });
     });`,
    { eval: true },
  );
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

test('a worker thread lowers its own priority, not the process’s', { skip: !linux && 'Linux only' }, async () => {
  const before = os.getPriority();
  const main = kernelThreadId();
  assert.equal(main, process.pid, 'the main thread’s kernel id is the process id');
  const worker = await inWorker(7);
  assert.equal(worker.lowered, true);
  assert.notEqual(worker.tid, process.pid);
  assert.equal(worker.nice, Math.min(before + 7, 19));
  assert.equal(os.getPriority(), before, 'the main thread keeps its priority');
});

/** This process's threads and their nice values (/proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command (which may hold spaces) start past its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

test('the body worker thread runs 10 below the event loop, which keeps its own priority', { skip: !linux && 'Linux only' }, async () => {
  const base = os.getPriority();
  const before = threadNices();
  const text = await storedValueOffThread({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }, async () => {});
  assert.equal(text, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}');
  const lowered = [...threadNices()].filter(([tid, nice]) => !before.has(tid) && nice === Math.min(base + 10, 19));
  assert.equal(lowered.length, 1, `one new thread at nice ${base + 10}: ${JSON.stringify([...threadNices()])}`);
  assert.equal(os.getPriority(), base);
});
