/**
 * Probes for "listens on loopback only" tests: the machine's other addresses, a bare TCP
 * connect that says whether anything accepted, and a raw POST whose Host header can be anything.
 */
import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect, createServer as createNetServer } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * The addresses of this machine that are not loopback. Link-local IPv6 addresses are left out
 * (they need a zone to be reached). Documented fallback: a machine with no other interface
 * still has 127.0.0.2 on Linux (all of 127.0.0.0/8 reaches `lo`), where a listener on the
 * wildcard address answers and one bound to 127.0.0.1 does not. Anywhere else this throws, so
 * the test fails instead of passing without having probed anything.
 */
export function nonLoopbackAddresses(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((info) => info !== undefined && !info.internal && !(info.family === 'IPv6' && /^fe[89ab]/i.test(info.address)))
    .map((info) => info!.address);
  if (addresses.length > 0) return addresses;
  if (process.platform === 'linux') return ['127.0.0.2'];
  throw new Error('This machine has no non-loopback address to probe a loopback-only listener from; connect it to a network and run again.');
}

/** Opens a TCP connection and closes it: `connected`, `refused`, `timed out`, or the error code. */
export function tcpConnect(host: string, port: number): Promise<string> {
  return new Promise((resolveOutcome) => {
    const socket = connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolveOutcome('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolveOutcome('timed out');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolveOutcome(error.code === 'ECONNREFUSED' ? 'refused' : String(error.code)));
  });
}

/** An answer as it came over the wire. */
export interface RawAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
  /** The body parsed, when it is a JSON object (else empty). */
  readonly json: Record<string, unknown>;
}

/** POSTs `body` with exactly `headers` to 127.0.0.1:`port` through node:http (which, unlike fetch, lets the Host header be anything). */
export function postRaw(port: number, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // not JSON: assertions on json fail
        }
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `<address> <outcome>` for each address, probed on `port`. */
export async function probeAll(addresses: readonly string[], port: number): Promise<string[]> {
  return Promise.all(addresses.map(async (address) => `${address} ${await tcpConnect(address, port)}`));
}

/** A port free on [::1] just now, or undefined when this machine has no IPv6 loopback (some containers). */
export function ipv6LoopbackPort(): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT') resolve(undefined);
      else reject(error);
    });
    server.listen({ port: 0, host: '::1', ipv6Only: true }, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
