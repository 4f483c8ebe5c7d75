/** The local gateway's hold on [::1] at its port (the gateway itself listens on 127.0.0.1). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { holdIpv6Loopback, ipv6LoopbackTakenWarning } from '../../local/ipv6-loopback';

test('held: every request is redirected to the same path on 127.0.0.1, method kept; closed, the port is free again', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen({ port: 0, host: '::1', ipv6Only: true }, resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));

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
  const squatter = createServer((_req, res) => res.end('not Signet'));
  await new Promise<void>((resolve) => squatter.listen({ port: 0, host: '::1', ipv6Only: true }, resolve));
  const port = (squatter.address() as AddressInfo).port;
  try {
    expect((await holdIpv6Loopback(port, `http://127.0.0.1:${port}`)).state).toBe('taken');
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
  }
  expect(ipv6LoopbackTakenWarning(port, `http://127.0.0.1:${port}`)).toBe(
    `warning: another program listens on [::1]:${port}; a browser that resolves localhost to ::1 reaches it, not this gateway. Open http://127.0.0.1:${port}/portal/ (not localhost), and stop that program if you do not know it.`,
  );
});
