// The no-op mutating webhook of bench/webhook.ts, in its own process so that
// its CPU is its own: answers every AdmissionReview allowed (no patch) over
// HTTPS with the certificate the parent passes (env WEBHOOK_CERT, WEBHOOK_KEY).
// IPC: sends {port} when listening; answers 'usage' with its CPU time (µs)
// and the number of reviews answered.

import https from 'node:https';
import type { AddressInfo } from 'node:net';

let calls = 0;
const server = https.createServer({ cert: process.env['WEBHOOK_CERT'], key: process.env['WEBHOOK_KEY'] }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: { uid: string } };
    calls++;
    const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('message', (m) => {
  if (m === 'usage') {
    const u = process.cpuUsage();
    process.send!({ cpuMicros: u.user + u.system, calls });
  }
});
process.on('disconnect', () => process.exit(0));
