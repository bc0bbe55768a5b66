// Port-forward over a WebSocket tunnel (upstream's TunnelingHandler, the
// PortForwardWebsockets feature, on in 1.32): a client such as kubectl 1.32
// asks for a WebSocket whose subprotocol is `SPDY/3.1+portforward.k8s.io`;
// the kubelet is asked for a plain SPDY/3.1 upgrade with that protocol. Once
// the kubelet switches, the client's WebSocket handshake completes with the
// kubelet's chosen protocol under the same prefix, and from then on every
// binary WebSocket message from the client is SPDY bytes for the kubelet, and
// every chunk from the kubelet goes back as one binary message. The SPDY
// frames themselves pass untouched: only the WebSocket framing is ours.
// Anything but a switch from the kubelet goes back to the client as it came.

import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { markSwitched, type ProxyLocation, type ProxyOptions } from './upgrade-aware.js';

const TUNNEL_PREFIX = 'SPDY/3.1+';
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The SPDY protocols a WebSocket request tunnels (its `SPDY/3.1+….k8s.io` subprotocols, prefix removed). */
export function tunneledSpdyProtocols(req: IncomingMessage): string[] {
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return [];
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return offered.filter((p) => p.startsWith(TUNNEL_PREFIX) && p.endsWith('.k8s.io')).map((p) => p.slice(TUNNEL_PREFIX.length));
}

/** Tunnels the client's WebSocket to a SPDY upgrade at the location; resolves when both ends have closed. */
export function tunnelSpdyOverWebSocket(req: IncomingMessage, res: ServerResponse, location: ProxyLocation, protocols: string[], options: ProxyOptions): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  const dropped = new Set(['connection', 'upgrade', 'host', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'sec-websocket-extensions', 'x-stream-protocol-version', 'content-length', 'transfer-encoding']);
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || dropped.has(name)) continue;
    if (options.forwardHeader !== undefined && !options.forwardHeader(name)) continue;
    headers[name] = value;
  }
  Object.assign(headers, options.extraHeaders ?? {});
  headers['connection'] = 'Upgrade';
  headers['upgrade'] = 'SPDY/3.1';
  headers['x-stream-protocol-version'] = protocols;
  const request = location.protocol === 'https:' ? https.request : http.request;
  return new Promise<void>((resolve) => {
    const outgoing = request({ host: location.host, port: location.port, method: 'POST', path: location.path, headers, ...(location.agent !== undefined ? { agent: location.agent } : {}) });
    const clientGone = (): void => {
      if (!res.writableFinished) outgoing.destroy();
    };
    res.on('close', clientGone);
    outgoing.on('response', (answer) => {
      // Not a switch: the kubelet's answer goes back as it is.
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && name !== 'transfer-encoding' && name !== 'connection') out[name] = value;
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
      answer.on('end', () => resolve());
      answer.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    outgoing.on('upgrade', (answer, backend, backendHead) => {
      res.off('close', clientGone);
      const client = res.socket;
      const upgradeHeader = String(answer.headers.upgrade ?? '').toLowerCase();
      if (client === null || !upgradeHeader.includes('spdy/3.1')) {
        backend.destroy();
        if (client !== null) {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('unable to upgrade: missing upgrade headers in response\n');
        }
        resolve();
        return;
      }
      const chosen = String(answer.headers['x-stream-protocol-version'] ?? '').trim();
      const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'] ?? '')}${WEBSOCKET_GUID}`).digest('base64');
      let head = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n`;
      if (chosen !== '') head += `Sec-WebSocket-Protocol: ${TUNNEL_PREFIX}${chosen}\r\n`;
      client.write(`${head}\r\n`);
      res.statusCode = 101;
      markSwitched(req);
      bridge(client, backend, backendHead, resolve);
    });
    outgoing.on('error', (err) => {
      res.off('close', clientGone);
      if (!res.headersSent) options.onError(err);
      else res.destroy();
      resolve();
    });
    outgoing.end();
  });
}

/** Kubelet bytes out as binary messages, the client's binary messages in as bytes; a close on either side ends both. */
function bridge(client: Duplex, backend: Duplex, backendHead: Buffer, done: () => void): void {
  let open = 2;
  const closed = (): void => {
    open -= 1;
    if (open === 0) done();
  };
  const toClient = (chunk: Buffer): void => {
    if (chunk.length > 0) client.write(frame(0x2, chunk));
  };
  toClient(backendHead);
  backend.on('data', toClient);
  const reader = new FrameReader(
    (payload) => backend.write(payload),
    (opcode, payload) => {
      if (opcode === 0x9) client.write(frame(0xa, payload));
      if (opcode === 0x8) {
        client.end(frame(0x8, payload.subarray(0, 2)));
        backend.end();
      }
    },
    () => client.destroy(),
  );
  client.on('data', (chunk: Buffer) => reader.push(chunk));
  backend.on('error', () => client.destroy());
  client.on('error', () => backend.destroy());
  backend.once('close', () => {
    // A normal closure (1000) tells the client the tunnel ended.
    if (client.writable) client.end(frame(0x8, Buffer.from([0x03, 0xe8])));
    closed();
  });
  client.once('close', () => {
    backend.destroy();
    closed();
  });
}

/** One unmasked, final frame (a server's frames are never masked). */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x80 | opcode, length]);
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/**
 * Reads a client's frames (masked, as RFC 6455 requires of clients): data
 * frames (binary, text, their continuations) go to onData as they complete,
 * control frames (close, ping, pong) to onControl; a malformed frame calls onError.
 */
class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(
    private readonly onData: (payload: Buffer) => void,
    private readonly onControl: (opcode: number, payload: Buffer) => void,
    private readonly onError: () => void,
  ) {}

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const b = this.buffered;
      if (b.length < 2) return;
      const opcode = b[0]! & 0x0f;
      const masked = (b[1]! & 0x80) !== 0;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        const big = b.readBigUInt64BE(2);
        if (big > BigInt(1 << 30)) return this.onError();
        length = Number(big);
        offset = 10;
      }
      if (!masked) return this.onError();
      if (b.length < offset + 4 + length) return;
      const mask = b.subarray(offset, offset + 4);
      const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + length));
      for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
      this.buffered = b.subarray(offset + 4 + length);
      // Data (a fragment is passed on as it comes: the tunnel is a byte stream) or control.
      if (opcode <= 0x2) this.onData(payload);
      else this.onControl(opcode, payload);
    }
  }
}
