/**
 * The local gateway's hold on [::1] at its port (the gateway itself listens on 127.0.0.1). On a
 * machine without an IPv6 loopback (some containers) there is nothing to hold, and the holder says
 * so without a warning: each test checks what this machine offers.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { holdIpv6Loopback, ipv6LoopbackTakenWarning, noIpv6Loopback } from '../../local/ipv6-loopback';
import { ipv6LoopbackPort } from '../support/network';

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

test('held: every request is redirected to the same path on 127.0.0.1, method kept; closed, the port is free again (no IPv6 loopback: unavailable, no warning)', async () => {
  const port = await ipv6LoopbackPort();
  if (port === undefined) {
    const none = await holdIpv6Loopback(3000, 'http://127.0.0.1:3000');
    expect(none.state === 'unavailable' && noIpv6Loopback(none.code)).toBe(true);
    return;
  }
  const held = await holdIpv6Loopback(port, `http://127.0.0.1:${port}`);
  expect(held.state).toBe('held');
  const answer = await fetch(`http://[::1]:${port}/registry/clients?limit=1`, { method: 'POST', body: '{}', redirect: 'manual' });
  expect({ status: answer.status, location: answer.headers.get('location') }).toEqual({ status: 308, location: `http://127.0.0.1:${port}/registry/clients?limit=1` });
  if (held.state === 'held') await held.close();
  const again = await holdIpv6Loopback(port, `http://127.0.0.1:${port}`);
  expect(again.state).toBe('held');
  if (again.state === 'held') await again.close();
});

test('taken by another program: said so, and the warning tells the operator to open 127.0.0.1', async () => {
  expect(ipv6LoopbackTakenWarning(3000, 'http://127.0.0.1:3000')).toBe(
    'warning: another program listens on [::1]:3000; a browser that resolves localhost to ::1 reaches it, not this gateway. Open http://127.0.0.1:3000/portal/ (not localhost), and stop that program if you do not know it.',
  );
  if ((await ipv6LoopbackPort()) === undefined) return; // nothing can hold [::1] here, so nothing can take it
  const squatter = createServer((_req, res) => res.end('not Signet'));
  await new Promise<void>((resolve) => squatter.listen({ port: 0, host: '::1', ipv6Only: true }, resolve));
  try {
    const port = (squatter.address() as AddressInfo).port;
    expect((await holdIpv6Loopback(port, `http://127.0.0.1:${port}`)).state).toBe('taken');
  } finally {
    await close(squatter);
  }
});
