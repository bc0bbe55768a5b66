// A bare gRPC unary call over node:http2, for benchmarks only: the cheapest
// client we can drive etcd with from Node, so that a loop of them shows what
// etcd itself takes on this machine when the client costs little. apiary talks
// to etcd through @grpc/grpc-js (deadlines, reconnects, keepalive, TLS, flow
// control); this has none of that and must not be used outside bench/.
//
// The wire format is gRPC's: a POST to /package.Service/Method with
// content-type application/grpc, the message framed as one flag byte (0: not
// compressed) and a 4-byte big-endian length; the answer's status is the
// grpc-status trailer (or header, for a trailers-only answer).

import * as http2 from 'node:http2';

export interface BareMethod {
  path: string;
  serialize(value: object): Buffer;
  deserialize(bytes: Buffer): unknown;
}

export function bareUnary(session: http2.ClientHttp2Session, method: BareMethod, request: object): Promise<unknown> {
  const message = method.serialize(request);
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': method.path, 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
    });
    stream.on('trailers', (trailers) => {
      status = String(trailers['grpc-status']);
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      if (status !== '0') {
        reject(new Error(`${method.path}: grpc-status ${status ?? 'missing'}`));
        return;
      }
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      resolve(method.deserialize(body.subarray(5)));
    });
    stream.end(frame);
  });
}
