/**
 * The local gateway listens on 127.0.0.1. A browser that resolves `localhost` to ::1 first would
 * reach whatever else listens on [::1] at the same port: another user's program, showing a page
 * that looks like the portal and asks for the admin's key file. So the gateway holds [::1]:<port>
 * too, and answers every request there with a redirect to the same path on 127.0.0.1 (308, so the
 * method is kept; a request signed for another host fails its signature there, as it would anyway).
 *
 * @example
 * const v6 = await holdIpv6Loopback(3000, 'http://127.0.0.1:3000');
 * if (v6.state === 'taken') console.warn('...');
 */
import { type Server, createServer } from 'node:http';

/** What became of [::1]:<port>. */
export type Ipv6Loopback =
  | { readonly state: 'held'; close(): Promise<void> }
  /** Another program listens there: a browser going to `localhost` may reach it. */
  | { readonly state: 'taken' }
  /** Nothing listens there for the gateway: this machine has no IPv6 loopback (`code` EADDRNOTAVAIL, EAFNOSUPPORT), or another error said why. */
  | { readonly state: 'unavailable'; readonly code: string };

/** Listens on [::1]:`port`, redirecting every request to `target` (`http://127.0.0.1:<port>`) with its path. */
export function holdIpv6Loopback(port: number, target: string): Promise<Ipv6Loopback> {
  const server: Server = createServer((req, res) => {
    const location = `${target}${(req.url ?? '/').startsWith('/') ? req.url : '/'}`;
    res.writeHead(308, { location, 'content-type': 'text/plain; charset=utf-8' }).end(`This local gateway answers at ${target}\n`);
  });
  return new Promise((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'EADDRINUSE' ? { state: 'taken' } : { state: 'unavailable', code: error.code ?? 'unknown' });
    });
    server.listen({ port, host: '::1', ipv6Only: true }, () => {
      resolve({
        state: 'held',
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Whether `code` only says the machine has no IPv6 loopback (nothing to warn about). */
export function noIpv6Loopback(code: string): boolean {
  return code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT';
}

/** The warning printed when the gateway could not hold [::1] for another reason than there being none. */
export function ipv6LoopbackFailedWarning(port: number, code: string, target: string): string {
  return `warning: could not listen on [::1]:${port} (${code}); a browser that resolves localhost to ::1 may not reach this gateway. Open ${target}/portal/ (not localhost).`;
}

/** The warning printed when another program holds [::1] at the gateway's port. */
export function ipv6LoopbackTakenWarning(port: number, target: string): string {
  return `warning: another program listens on [::1]:${port}; a browser that resolves localhost to ::1 reaches it, not this gateway. Open ${target}/portal/ (not localhost), and stop that program if you do not know it.`;
}
