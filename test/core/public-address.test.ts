import { nonPublicReason } from '../../lambda/core/public-address';

describe('nonPublicReason: addresses a key source must never reach', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private (10.0.0.0/8)'],
    ['172.16.0.1', 'private (172.16.0.0/12)'],
    ['172.31.255.255', 'private (172.16.0.0/12)'],
    ['192.168.1.1', 'private (192.168.0.0/16)'],
    ['169.254.169.254', 'link-local'],
    ['169.254.170.2', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '"this network"'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.7', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['192.88.99.1', '6to4 relay'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified (::/128)'],
    ['::1', 'loopback (::1/128)'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'documentation (2001:db8::/32)'],
    ['3fff::1', 'documentation (3fff::/20)'],
    ['2001::1', 'IETF protocol assignments'],
    ['5f00::1', 'SRv6'],
    ['4000::1', 'reserved (outside global unicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped form of loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped form of link-local'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped form of link-local'],
    ['::FFFF:10.0.0.1', 'IPv4-mapped form of private'],
    ['::10.0.0.1', 'IPv4-compatible form of private'],
    ['::127.0.0.1', 'IPv4-compatible form of loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 form of link-local'],
    ['64:ff9b::192.168.0.1', 'NAT64 form of private'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 form of loopback'],
    ['2002:a9fe:a9fe::', '6to4 form of link-local'],
  ])('%s: %s', (address, reason) => {
    expect(nonPublicReason(address)).toContain(reason);
  });

  it.each(['93.184.216.34', '1.1.1.1', '8.8.8.8', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.255.255', '192.169.0.1', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    '%s is public',
    (address) => {
      expect(nonPublicReason(address)).toBeUndefined();
    },
  );

  it.each(['localhost', '', '1.2.3', '01.2.3.4', '1.2.3.4.5', '::ffff:1.2.3.256', 'fe80::1::1'])('%j is not an IP address', (text) => {
    expect(nonPublicReason(text)).toBe('not an IP address');
  });
});
