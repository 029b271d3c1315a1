import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHostResolver, isPrivateAddress } from './resolve';

describe('createHostResolver', () => {
  it('answers names from the hosts file without a DNS query', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'upfleet-hosts-'));
    const file = path.join(dir, 'hosts');
    writeFileSync(file, '# comment\n127.0.0.9 probe-target.test alias.test\n::1 probe-target.test\n');
    const r = createHostResolver({ hostsFile: file });
    expect(await r.resolve('probe-target.test')).toEqual({ ok: true, address: '127.0.0.9', family: 4 });
    expect(await r.resolve('ALIAS.test.')).toEqual({ ok: true, address: '127.0.0.9', family: 4 });
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves literals and localhost locally and never resolves .invalid', async () => {
    const r = createHostResolver();
    expect(await r.resolve('[::1]')).toEqual({ ok: true, address: '::1', family: 6 });
    expect(await r.resolve('localhost')).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
    expect(await r.resolve('x.invalid')).toEqual({ ok: false, error: 'host not found: x.invalid' });
  });
});

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1',
  ])('treats %s as private', (a) => expect(isPrivateAddress(a)).toBe(true));
  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1'])('treats %s as public', (a) =>
    expect(isPrivateAddress(a)).toBe(false));
});
