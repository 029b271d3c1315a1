import { describe, expect, it } from 'vitest';
import { isPrivateAddress, isPrivateHostname, parseLooseIpv4 } from './targets';

describe('isPrivateHostname (the create-time check on a URL host)', () => {
  // each as new URL(...).hostname gives it, and as written
  it.each([
    'localhost', 'localhost.', 'LOCALHOST.', 'api.localhost', 'api.localhost.', 'metadata.google.internal', 'printer.local',
    '127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]', '[::]',
    '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::ffff:169.254.169.254]', '[::ffff:a9fe:a9fe]', '[64:ff9b::a9fe:a9fe]', '[64:ff9b::7f00:1]',
    '[fd00::1]', '[fe80::1]', '[2002:7f00:1::]',
    '2130706433', '0x7f000001', '017700000001', '0177.0.0.1', '0x7f.0.0.1', '127.1', '0', '0x0', '2852039166', '0xa9fea9fe',
  ])('refuses %s', (host) => expect(isPrivateHostname(host)).toBe(true));

  it.each([
    'example.com', 'example.com.', '93.184.216.34', '1.1.1.1', '[2606:4700:4700::1111]', '[::ffff:93.184.216.34]', '1572395042',
    'localhost.example.com', '0x.example.com', '127.example.com',
  ])('allows %s', (host) => expect(isPrivateHostname(host)).toBe(false));

  it('refuses what the WHATWG URL parser makes of these URLs', () => {
    for (const url of ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:169.254.169.254]/latest', 'http://[64:ff9b::a9fe:a9fe]/', 'http://localhost./',
      'http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/']) {
      expect(isPrivateHostname(new URL(url).hostname), url).toBe(true);
    }
  });
});

describe('parseLooseIpv4 and isPrivateAddress', () => {
  it('reads the inet_aton forms', () => {
    expect(parseLooseIpv4('2130706433')).toBe('127.0.0.1');
    expect(parseLooseIpv4('0x7f.1')).toBe('127.0.0.1');
    expect(parseLooseIpv4('0177.0.0.01')).toBe('127.0.0.1');
    expect(parseLooseIpv4('256.1.1.1')).toBeNull();
    expect(parseLooseIpv4('4294967296')).toBeNull();
    expect(parseLooseIpv4('example')).toBeNull();
  });
  it('judges IPv4-mapped addresses by their IPv4 part', () => {
    expect(isPrivateAddress('::ffff:7f00:1')).toBe(true);
    expect(isPrivateAddress('::ffff:5db8:d822')).toBe(false);
  });
});
